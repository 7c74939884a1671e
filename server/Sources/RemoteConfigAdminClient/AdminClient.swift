import Foundation
import RemoteConfigAPI
import RemoteConfigCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client of the admin API (`/v1/…` with a bearer key), over Foundation's `URLSession`.
///
/// Each route has a typed method in an extension named after its noun (`AdminClient+Projects.swift`, …);
/// a new noun (change requests) adds one more extension over `send`.
public struct AdminClient: Sendable {
    /// One answer: status, headers (lowercased names) and body bytes.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]

        /// The body as JSON.
        public func json() throws -> JSONValue {
            do {
                return try JSONValue(parsing: body)
            } catch {
                throw AdminClientError.badResponse("not JSON (\(error))")
            }
        }

        /// The body as `type`, one of the API's bodies.
        public func decode<T: Decodable>(_ type: T.Type) throws -> T {
            do {
                return try APIDecoder.decode(type, from: body)
            } catch let error as DecodingError {
                let (field, problem) = FieldProblem.of(error)
                throw AdminClientError.badResponse(problem.sentence(field: field))
            }
        }

        /// The body as a JSON object.
        public func object() throws -> JSONObject {
            guard let object = try json().objectValue else { throw AdminClientError.badResponse("not a JSON object") }
            return object
        }
    }

    /// The server's base URL, e.g. `http://127.0.0.1:8080`.
    public let server: URL
    /// The bearer key; nil sends none (the server then answers 401).
    public let token: String?
    private let session: URLSession

    /// Creates a client of `server` acting with `token`.
    public init(server: URL, token: String?, timeout: TimeInterval = 60) {
        self.server = server
        self.token = token
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        self.session = URLSession(configuration: configuration)
    }

    /// The server as people typed it, without a trailing slash, for messages.
    public var serverText: String {
        var text = server.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// Sends one request. Any status is returned; only a failure to get an answer throws.
    public func send(
        _ method: String, _ path: String, query: [(String, String)] = [], body: [UInt8]? = nil,
        headers: [String: String] = [:]
    ) async throws -> Response {
        guard var components = URLComponents(string: serverText + path) else {
            throw AdminClientError.unreachable(server: serverText, reason: "not a valid URL")
        }
        if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        guard let url = components.url else {
            throw AdminClientError.unreachable(server: serverText, reason: "not a valid URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw AdminClientError.unreachable(server: serverText, reason: Self.reason(error))
        }
        guard let http = response as? HTTPURLResponse else {
            throw AdminClientError.badResponse("not an HTTP answer")
        }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)".lowercased()] = "\(value)" }
        return Response(status: http.statusCode, headers: fields, body: Array(data))
    }

    /// Sends one request and returns the answer when its status is 2xx; otherwise throws the server's error.
    public func call(
        _ method: String, _ path: String, query: [(String, String)] = [], body: [UInt8]? = nil,
        headers: [String: String] = [:]
    ) async throws -> Response {
        let response = try await send(method, path, query: query, body: body, headers: headers)
        guard (200..<300).contains(response.status) else { throw AdminClientError.server(Self.error(response)) }
        return response
    }

    /// The API's error shape read from an answer, or a plain sentence when the body is something else.
    public static func error(_ response: Response) -> ServerError {
        let fallback = HTTPURLResponse.localizedString(forStatusCode: response.status)
        guard let body = try? APIDecoder.decode(ErrorBody.self, from: response.body) else {
            return ServerError(
                code: response.status, status: "",
                message: "the server answered \(response.status) (\(fallback))", details: [], body: response.body)
        }
        let details = (body.error.details ?? []).map { item in
            ServerError.Detail(field: item.field, reason: item.reason, message: item.message)
        }
        return ServerError(
            code: response.status, status: body.error.status, message: body.error.message, details: details,
            body: response.body)
    }

    /// A short reason for a transport failure ("connection refused", "timed out").
    static func reason(_ error: Error) -> String {
        guard let error = error as? URLError else { return "\(error)" }
        switch error.code {
        case .cannotConnectToHost: return "connection refused"
        case .cannotFindHost, .dnsLookupFailed: return "host not found"
        case .timedOut: return "no answer (timed out)"
        case .networkConnectionLost: return "the connection was closed before an answer came"
        case .notConnectedToInternet: return "no network"
        case .unsupportedURL: return "not a URL this client can call (use http:// or https://)"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return "the TLS connection failed (\(error.localizedDescription))"
        default: return error.localizedDescription
        }
    }

    /// `segment` percent-encoded for a path.
    static func escape(_ segment: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/:")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }
}
