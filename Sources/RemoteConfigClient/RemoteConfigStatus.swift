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

/// Settings of a `RemoteConfig` instance: a class, as in Firebase, so its sample code compiles unchanged.
///
/// ```swift
/// let settings = RemoteConfigSettings()
/// settings.minimumFetchInterval = 0
/// remoteConfig.configSettings = settings
/// ```
///
/// The instance keeps the object it was given, so `remoteConfig.configSettings.minimumFetchInterval = 0` works too,
/// and changing `settings` later changes that instance's next fetch.
public final class RemoteConfigSettings: Sendable, CustomStringConvertible {
    private struct Values: Sendable {
        var minimumFetchInterval: TimeInterval
        var fetchTimeout: TimeInterval
    }

    // A lock rather than plain stored properties: a settings object may be changed while a fetch reads it.
    private let values: Locked<Values>

    /// The shortest time between two network fetches; `fetch()` within it answers from the cache. Default 12 hours.
    public var minimumFetchInterval: TimeInterval {
        get { values.withLock { $0.minimumFetchInterval } }
        set { values.withLock { $0.minimumFetchInterval = newValue } }
    }

    /// How long one fetch may take in all, from connecting to the last byte of the answer; then it fails with
    /// `RemoteConfigError.timedOut` and the active values stay. Default 10 seconds (Firebase's is 60): an app that
    /// waits for a fetch at launch is never held longer than this, even by a server that accepts and never answers.
    public var fetchTimeout: TimeInterval {
        get { values.withLock { $0.fetchTimeout } }
        set { values.withLock { $0.fetchTimeout = newValue } }
    }

    /// Creates settings: Firebase's 12-hour minimum fetch interval, and a 10-second timeout rather than Firebase's
    /// 60 seconds, a wait a user on a splash screen would take for a frozen app.
    public init(minimumFetchInterval: TimeInterval = 12 * 60 * 60, fetchTimeout: TimeInterval = 10) {
        self.values = Locked(Values(minimumFetchInterval: minimumFetchInterval, fetchTimeout: fetchTimeout))
    }

    /// `minimumFetchInterval` and `fetchTimeout`, for logs.
    public var description: String {
        "RemoteConfigSettings(minimumFetchInterval: \(minimumFetchInterval), fetchTimeout: \(fetchTimeout))"
    }
}
