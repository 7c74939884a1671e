import Foundation

/// Where a value came from, as in Firebase.
public enum RemoteConfigSource: String, Sendable, Hashable, Codable {
    /// The last activated values fetched from the server.
    case remote
    /// The in-app defaults set with `setDefaults`.
    case `default`
    /// Neither: the static value (an empty string, `false`, `0`).
    case `static`
}

/// The outcome of the last fetch, as in Firebase.
public enum RemoteConfigFetchStatus: String, Sendable, Hashable, Codable {
    /// No fetch has been made on this device yet.
    case noFetchYet
    /// The last fetch succeeded (new values, no change, or served from the throttle cache).
    case success
    /// The last fetch failed; the active values were kept.
    case failure
    /// The last fetch was refused because the server asked the SDK to back off.
    case throttled
}

/// The outcome of `fetchAndActivate()`, as in Firebase.
public enum RemoteConfigFetchAndActivateStatus: Sendable, Hashable {
    /// New values came from the server and were activated.
    case successFetchedFromRemote
    /// No new values came from the server (throttled or unchanged); values fetched earlier were activated if pending.
    case successUsingPreFetchedData
    /// The fetch failed; only reported by the completion-handler variant, the async variant throws instead.
    case error
}

/// Settings of a `RemoteConfig` instance.
public struct RemoteConfigSettings: Sendable, Hashable {
    /// The shortest time between two network fetches; `fetch()` within it answers from the cache. Default 12 hours.
    public var minimumFetchInterval: TimeInterval
    /// How long one fetch request may take. Default 60 seconds.
    public var fetchTimeout: TimeInterval

    /// Creates settings; the defaults are Firebase's.
    public init(minimumFetchInterval: TimeInterval = 12 * 60 * 60, fetchTimeout: TimeInterval = 60) {
        self.minimumFetchInterval = minimumFetchInterval
        self.fetchTimeout = fetchTimeout
    }
}

/// Something went wrong talking to the server; the active values are never affected.
public enum RemoteConfigError: Error, Sendable, Hashable, LocalizedError {
    /// The server asked the SDK to back off (429 or 503); no request is sent before `until`.
    case throttled(until: Date)
    /// The server answered with an error (the API's `{"error": {...}}` shape when it sent one).
    case server(statusCode: Int, status: String?, message: String?)
    /// The server's answer could not be understood.
    case invalidResponse(String)
    /// The request did not reach the server or no answer came back (offline, timeout, TLS).
    case transport(String)

    /// A sentence for logs.
    public var errorDescription: String? {
        switch self {
        case .throttled(let until):
            return "Remote config fetch throttled until \(until)."
        case .server(let code, let status, let message):
            return "Remote config server answered \(code) \(status ?? ""): \(message ?? "no message")."
        case .invalidResponse(let reason):
            return "Remote config server sent an invalid response: \(reason)."
        case .transport(let reason):
            return "Remote config request failed: \(reason)."
        }
    }
}
