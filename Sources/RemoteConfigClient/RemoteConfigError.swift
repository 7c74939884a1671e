import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Something went wrong talking to the server; the active values are never affected.
///
/// The cases tell apart what an app reacts to differently: no network (wait for it), a timeout, a refused key (a
/// bug or a revoked key: no retry helps), a server that asked to wait (`Retry-After`), and other error answers.
public enum RemoteConfigError: Error, Sendable, Hashable, LocalizedError {
    /// No request was sent: an earlier 429 or 503 asked the SDK to wait until `until`.
    case throttled(until: Date)
    /// The server answered 429 or 503 (`UNAVAILABLE`). `retryAfter` is its `Retry-After` in seconds (`nil` when it sent
    /// none); no request is sent before `until` (that delay, or the SDK's own 1, 2, 4… minutes).
    case unavailable(statusCode: Int, retryAfter: TimeInterval?, until: Date)
    /// The server refused the client key (401 or 403): wrong, revoked, or of another project.
    case keyRefused(statusCode: Int, message: String?)
    /// The server answered with another error (the API's `{"error": {...}}` shape when it sent one).
    case server(statusCode: Int, status: String?, message: String?)
    /// The server's answer could not be understood.
    case invalidResponse(String)
    /// The device has no usable network: the `URLError` code (`notConnectedToInternet`, `dataNotAllowed`,
    /// `internationalRoamingOff`, `callIsActive`).
    case offline(URLError.Code)
    /// No complete answer came within `fetchTimeout`, whether or not the server accepted the connection
    /// (`URLError.timedOut`).
    case timedOut
    /// The network works but the server could not be reached or the connection failed: the `URLError` code says how
    /// (`cannotConnectToHost` for a refused connection, `networkConnectionLost` for one closed before the answer,
    /// `cannotFindHost`, `secureConnectionFailed`…).
    case connectionFailed(URLError.Code)
    /// A custom `HTTPTransport` failed with an error that is not a `URLError`.
    case transport(String)

    /// The `URLError` code behind a network failure, `nil` for answers from the server.
    public var urlErrorCode: URLError.Code? {
        switch self {
        case .offline(let code), .connectionFailed(let code): return code
        case .timedOut: return .timedOut
        default: return nil
        }
    }

    /// The error a transport failure stands for: `URLError`s by their code, anything else as `transport`.
    public static func from(transportError error: any Error) -> RemoteConfigError {
        if let known = error as? RemoteConfigError { return known }
        guard let urlError = error as? URLError else { return .transport(String(describing: error)) }
        switch urlError.code {
        case .timedOut: return .timedOut
        // Not `networkConnectionLost`: a server or proxy closing the connection causes it as often as the network.
        case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff, .callIsActive:
            return .offline(urlError.code)
        default: return .connectionFailed(urlError.code)
        }
    }

    /// A sentence for logs.
    public var errorDescription: String? {
        switch self {
        case .throttled(let until):
            return "Remote config fetch throttled until \(until)."
        case .unavailable(let code, let retryAfter, let until):
            let asked = retryAfter.map { "asked to retry after \(Int($0)) s" } ?? "no Retry-After"
            return "Remote config server unavailable (\(code), \(asked)); next attempt after \(until)."
        case .keyRefused(let code, let message):
            return "Remote config server refused the client key (\(code)): \(message ?? "no message")."
        case .server(let code, let status, let message):
            return "Remote config server answered \(code) \(status ?? ""): \(message ?? "no message")."
        case .invalidResponse(let reason):
            return "Remote config server sent an invalid response: \(reason)."
        case .offline(let code):
            return "Remote config request failed: the device is offline (URLError \(code.rawValue))."
        case .timedOut:
            return "Remote config request timed out."
        case .connectionFailed(let code):
            return "Remote config server could not be reached (URLError \(code.rawValue))."
        case .transport(let reason):
            return "Remote config request failed: \(reason)."
        }
    }
}
