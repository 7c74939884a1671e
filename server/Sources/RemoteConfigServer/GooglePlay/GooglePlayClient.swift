import Foundation
import NIOConcurrencyHelpers
import NIOHTTP1
import RemoteConfigCore
import RemoteConfigStore

/// Reads a track through the Google Play Developer API as Google documents it: a service-account JWT exchanged
/// at the token URL for an access token (reused until a minute before it expires), then an edit opened
/// (`POST …/edits`), the track read (`GET …/edits/{id}/tracks/{track}`) and the edit deleted (`DELETE
/// …/edits/{id}`): a read never commits an edit.
///
/// Every call goes through `OutboundHTTPClient`: at most `timeout` and `maximumBytes`, no redirect followed,
/// nothing unpacked.
struct GooglePlayClient: Sendable {
    /// Google's answers here are a few kilobytes; far more is not one.
    static let maximumBytes = 2 << 20
    /// A token is not used in its last minute, so it never expires mid-sync.
    static let tokenMargin: TimeInterval = 60

    let tokenURL: String
    let apiURL: String
    /// Each call, connecting included, ends within this.
    let timeout: Duration
    private let client: OutboundHTTPClient
    /// Access tokens by link and key, with when they stop being used.
    private let tokens = NIOLockedValueBox<[String: (token: String, until: Date)]>([:])

    init(tokenURL: String, apiURL: String, timeout: Duration) {
        self.tokenURL = tokenURL
        self.apiURL = apiURL.hasSuffix("/") ? String(apiURL.dropLast()) : apiURL
        self.timeout = timeout
        // Both URLs are the operator's settings (a stand-in or a proxy may be on a private network).
        self.client = OutboundHTTPClient(
            allowPrivate: true, timeout: timeout, answerLimit: Self.maximumBytes,
            userAgent: "remote-config-google-play-sync")
    }

    static let tokenEndpoint = "the token endpoint"
    /// The OAuth 2.0 grant of a signed JWT (RFC 7523), as Google's token endpoint takes it.
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    static let api = "the Google Play Developer API"

    /// The track `track` of `packageName` as an edit shows it, read with `key` (tokens cached under `cacheKey`).
    func track(packageName: String, track: String, key: GooglePlayServiceAccountKey, cacheKey: String)
        async throws(GooglePlayError) -> GooglePlayTrack
    {
        let token = try await accessToken(key, cacheKey: cacheKey)
        let edits = "\(apiURL)/androidpublisher/v3/applications/\(packageName)/edits"
        let auth = [("Authorization", "Bearer \(token)"), ("Accept", "application/json")]
        let opened = try await call(
            .POST, edits, headers: auth + [("Content-Type", "application/json")], body: Array("{}".utf8),
            what: Self.api)
        try check(opened, what: Self.api, key: key, packageName: packageName, track: track, cacheKey: cacheKey)
        let id = try Self.editId(opened.body)
        let read: Result<GooglePlayTrack, GooglePlayError>
        do throws(GooglePlayError) {
            let answer = try await call(.GET, "\(edits)/\(id)/tracks/\(track)", headers: auth, what: Self.api)
            try check(answer, what: Self.api, key: key, packageName: packageName, track: track, cacheKey: cacheKey)
            read = .success(try GooglePlayTrack.parse(Data(answer.body)))
        } catch {
            read = .failure(error)
        }
        // Deleted whatever the read did: an edit left open is Google's to expire, and ours not to leave.
        let deleted = try await call(.DELETE, "\(edits)/\(id)", headers: auth, what: Self.api)
        let found = try read.get()
        try check(deleted, what: Self.api, key: key, packageName: packageName, track: track, cacheKey: cacheKey)
        return found
    }

    /// A cached access token of `key`, or a new one from the token URL.
    func accessToken(_ key: GooglePlayServiceAccountKey, cacheKey: String) async throws(GooglePlayError) -> String {
        let now = Date()
        if let cached = tokens.withLockedValue({ $0[cacheKey] }), cached.until > now { return cached.token }
        let assertion = try await GooglePlayAssertion.signed(key, tokenURL: tokenURL, now: now)
        // As Google's example writes it: the form's values percent-encoded (the JWT's characters need none).
        let unreserved = CharacterSet(charactersIn: "-._~").union(.alphanumerics)
        let grant = Self.grantType.addingPercentEncoding(withAllowedCharacters: unreserved) ?? Self.grantType
        let encoded = assertion.addingPercentEncoding(withAllowedCharacters: unreserved) ?? assertion
        let body = Array("grant_type=\(grant)&assertion=\(encoded)".utf8)
        let answer = try await call(
            .POST, tokenURL,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: body, what: Self.tokenEndpoint)
        try Self.bounded(answer, what: Self.tokenEndpoint)
        guard answer.status == 200 else {
            let google = Self.googleMessage(answer.body)
            switch answer.status {
            case 400, 401, 403: throw .keyRefused(status: answer.status, google: google)
            case 429, 500...599: throw .backOff(what: Self.tokenEndpoint, status: answer.status)
            default: throw .httpStatus(what: Self.tokenEndpoint, status: answer.status, google: google)
            }
        }
        guard let value = try? JSONValue(parsing: Data(answer.body)), case .object(let root) = value,
            case .string(let token)? = root["access_token"], !token.isEmpty, token.utf8.count <= 4096,
            token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw .malformed(what: Self.tokenEndpoint, reason: "no access_token")
        }
        var lifetime: TimeInterval = 0
        if case .number(let text)? = root["expires_in"], let seconds = Double(text), seconds > 0 {
            lifetime = min(seconds, 24 * 3600)
        }
        // A token that would be in its last minute at once is used for this sync only.
        if lifetime > Self.tokenMargin {
            let until = now.addingTimeInterval(lifetime - Self.tokenMargin)
            tokens.withLockedValue { cache in
                // Tokens of replaced keys and removed links go once they would have expired.
                cache = cache.filter { $0.value.until > now }
                cache[cacheKey] = (token, until)
            }
        }
        return token
    }

    /// Forgets the token cached under `cacheKey` (Google refused it, or the link's key changed).
    func forget(_ cacheKey: String) {
        _ = tokens.withLockedValue { $0.removeValue(forKey: cacheKey) }
    }

    private func call(
        _ method: HTTPMethod, _ url: String, headers: [(String, String)], body: [UInt8]? = nil, what: String
    ) async throws(GooglePlayError) -> OutboundHTTPClient.Answer {
        do {
            return try await client.send(method, url, headers: headers + [("Accept-Encoding", "identity")], body: body)
        } catch let failure as OutboundHTTPClient.Failure {
            throw failure.timedOut
                ? .timedOut(what: what, limit: timeout) : .unreachable(what: what, reason: failure.description)
        } catch {
            throw .unreachable(what: what, reason: "\(error)")
        }
    }

    /// Throws unless `answer` is a whole, uncompressed, non-redirect answer.
    private static func bounded(_ answer: OutboundHTTPClient.Answer, what: String) throws(GooglePlayError) {
        if (300..<400).contains(answer.status) { throw .redirected(what: what, status: answer.status) }
        guard !answer.cut else { throw .tooLarge(what: what, limit: maximumBytes) }
        let encoding = (answer.headers.first(name: "Content-Encoding") ?? "").trimmingCharacters(in: .whitespaces)
        guard encoding.isEmpty || encoding.lowercased() == "identity" else {
            throw .malformed(what: what, reason: "a compressed body although none was asked for")
        }
    }

    /// Throws what an API answer other than 2xx means, in words; a refused token is forgotten.
    private func check(
        _ answer: OutboundHTTPClient.Answer, what: String, key: GooglePlayServiceAccountKey, packageName: String,
        track: String, cacheKey: String
    ) throws(GooglePlayError) {
        try Self.bounded(answer, what: what)
        switch answer.status {
        case 200...299: return
        case 401, 403:
            forget(cacheKey)
            throw .noAccess(status: answer.status, account: key.account.clientEmail, packageName: packageName)
        case 404: throw .notFound(packageName: packageName, track: track)
        case 429, 500...599: throw .backOff(what: what, status: answer.status)
        default: throw .httpStatus(what: what, status: answer.status, google: Self.googleMessage(answer.body))
        }
    }

    /// The `id` of an `AppEdit`, checked to be safe in a path.
    static func editId(_ body: [UInt8]) throws(GooglePlayError) -> String {
        guard let value = try? JSONValue(parsing: Data(body)), case .object(let root) = value,
            case .string(let id)? = root["id"], (1...200).contains(id.utf8.count),
            id.unicodeScalars.allSatisfy({
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0))
            })
        else {
            throw .malformed(what: api, reason: "the new edit has no usable id")
        }
        return id
    }

    /// Google's own sentence from an error answer (`{"error": {"message"}}` or `{"error_description"}`), short and
    /// printable; empty when there is none.
    static func googleMessage(_ body: [UInt8]) -> String {
        guard let value = try? JSONValue(parsing: Data(body.prefix(64 * 1024))), case .object(let root) = value
        else { return "" }
        var text = ""
        if case .string(let description)? = root["error_description"] {
            text = description
        } else if case .object(let error)? = root["error"], case .string(let message)? = error["message"] {
            text = message
        } else if case .string(let code)? = root["error"] {
            text = code
        }
        let printable = String(
            String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(200)))
        return printable
    }
}
