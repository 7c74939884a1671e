import Foundation

/// The entry point of the SDK: in-app defaults, fetched and active values, realtime updates.
///
/// Create one instance per project and keep it for the app's lifetime. All methods may be called from any thread or
/// task; reading values is synchronous and cheap.
public final class RemoteConfig: Sendable {
    /// The server's base URL, such as `https://config.example.com`.
    public let serverURL: URL
    /// The project id the values come from.
    public let project: String
    /// The app's identity, sent with every fetch.
    public let app: AppIdentity
    /// The device's region, language and time zone, sent with every fetch.
    public let device: DeviceContext
    /// Where fetched and active values are kept across launches.
    public let storageDirectory: URL

    let clientKey: String
    let transport: any HTTPTransport
    let now: @Sendable () -> Date
    let sleep: @Sendable (TimeInterval) async throws -> Void
    let stateFile: StateFile
    let state: Locked<RuntimeState>
    let realtime = Locked(RealtimeState())

    /// Creates an instance and loads what an earlier launch saved in `storageDirectory`.
    ///
    /// - Parameters:
    ///   - serverURL: The server's base URL.
    ///   - project: The project id.
    ///   - clientKey: A client API key of that project, sent as `X-API-Key`.
    ///   - app: The app's identity (`AppIdentity.fromBundle()` on Apple platforms).
    ///   - storageDirectory: Where state is saved; by default `Application Support/RemoteConfig/<project>`.
    ///   - device: Region, language and time zone; by default the device's current ones.
    ///   - settings: Throttle and timeout settings.
    ///   - transport: The HTTP layer; by default `URLSession`.
    ///   - now: The clock, injectable for tests.
    ///   - sleep: Waits a number of seconds (the realtime stream's reconnect backoff), injectable for tests.
    public init(
        serverURL: URL,
        project: String,
        clientKey: String,
        app: AppIdentity,
        storageDirectory: URL? = nil,
        device: DeviceContext = .current,
        settings: RemoteConfigSettings = RemoteConfigSettings(),
        transport: any HTTPTransport = URLSessionTransport(),
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = { seconds in
            try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
        }
    ) {
        self.serverURL = serverURL
        self.project = project
        self.clientKey = clientKey
        self.app = app
        self.device = device
        self.transport = transport
        self.now = now
        self.sleep = sleep
        let directory = storageDirectory ?? Self.defaultStorageDirectory(project: project)
        self.storageDirectory = directory
        self.stateFile = StateFile(directory: directory)
        var persisted = stateFile.load()
        if persisted.appInstanceId.isEmpty { persisted.appInstanceId = PersistentState.fresh().appInstanceId }
        self.state = Locked(RuntimeState(persisted: persisted, settings: settings))
        stateFile.save(persisted)
    }

    /// `Application Support/RemoteConfig/<project>` (or the temporary directory where there is none).
    public static func defaultStorageDirectory(project: String) -> URL {
        let base =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return base.appendingPathComponent("RemoteConfig", isDirectory: true)
            .appendingPathComponent(project, isDirectory: true)
    }

    // MARK: Identity and status

    /// This installation's id, generated once and persisted; `percent` conditions bucket on it.
    public var appInstanceId: String { state.withLock { $0.persisted.appInstanceId } }

    /// The outcome of the last fetch.
    public var lastFetchStatus: RemoteConfigFetchStatus { state.withLock { $0.persisted.lastFetchStatus } }

    /// When the last fetch completed (successfully or not); `nil` before the first.
    public var lastFetchTime: Date? { state.withLock { $0.persisted.lastFetchTime } }

    /// The template version of the active values, when the server reported one.
    public var activeTemplateVersion: String? { state.withLock { $0.persisted.active?.templateVersion } }

    /// Throttle and timeout settings; changes apply to the next fetch.
    public var configSettings: RemoteConfigSettings {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }

    // MARK: Values

    /// The value for `key`: the active remote value, else the in-app default, else a static empty value.
    public func configValue(forKey key: String?) -> RemoteConfigValue {
        guard let key else { return RemoteConfigValue(stringValue: "", source: .static) }
        return state.withLock { state in
            if let remote = activeRemoteText(forKey: key, in: state) {
                return RemoteConfigValue(stringValue: remote, source: .remote)
            }
            if let fallback = state.defaults[key] {
                return RemoteConfigValue(stringValue: fallback, source: .default)
            }
            return RemoteConfigValue(stringValue: "", source: .static)
        }
    }

    /// The value for `key` from one source only; a static empty value when that source has none.
    public func configValue(forKey key: String?, source: RemoteConfigSource) -> RemoteConfigValue {
        guard let key else { return RemoteConfigValue(stringValue: "", source: .static) }
        let text: String? = state.withLock { state in
            switch source {
            case .remote: return activeRemoteText(forKey: key, in: state)
            case .default: return state.defaults[key]
            case .static: return nil
            }
        }
        guard let text else { return RemoteConfigValue(stringValue: "", source: .static) }
        return RemoteConfigValue(stringValue: text, source: source)
    }

    /// The active remote text for `key`. The force-update flag (`forceUpdateKeys.requireForceUpdate`) is left out
    /// when the active values were fetched by another app version or build: the server decided it for that version,
    /// and a user who installed the fixed release must not stay blocked while offline or until a fetch completes.
    func activeRemoteText(
        forKey key: String, in state: RuntimeState, flagKey: String? = nil, appVersion: String? = nil
    ) -> String? {
        guard let active = state.persisted.active, let text = active.entries[key] else { return nil }
        if key == (flagKey ?? state.forceUpdateKeys.requireForceUpdate),
            !active.wasFetched(for: app, version: appVersion)
        {
            return nil
        }
        return text
    }

    /// Same as `configValue(forKey:)`: `remoteConfig["welcome_text"].stringValue`.
    public subscript(key: String) -> RemoteConfigValue {
        configValue(forKey: key)
    }

    /// The in-app default for `key`, or `nil` when none was set.
    public func defaultValue(forKey key: String?) -> RemoteConfigValue? {
        guard let key, let text = state.withLock({ $0.defaults[key] }) else { return nil }
        return RemoteConfigValue(stringValue: text, source: .default)
    }

    /// The keys a source has, sorted (`.static` has none).
    public func allKeys(from source: RemoteConfigSource) -> [String] {
        state.withLock { state in
            switch source {
            case .remote: return (state.persisted.active?.entries.keys).map { $0.sorted() } ?? []
            case .default: return state.defaults.keys.sorted()
            case .static: return []
            }
        }
    }

    /// The keys, active or default, that start with `prefix` (all keys when `prefix` is `nil` or empty).
    public func keys(withPrefix prefix: String?) -> Set<String> {
        state.withLock { state in
            var all = Set(state.defaults.keys)
            if let active = state.persisted.active { all.formUnion(active.entries.keys) }
            guard let prefix, !prefix.isEmpty else { return all }
            return all.filter { $0.hasPrefix(prefix) }
        }
    }

    // MARK: Defaults

    /// Replaces the in-app defaults; values are converted to text (`true`/`false`, numbers, JSON for collections).
    public func setDefaults(_ defaults: [String: Any]?) {
        let strings = DefaultsParser.strings(from: defaults ?? [:])
        state.withLock { $0.defaults = strings }
    }

    /// Replaces the in-app defaults with text values.
    public func setDefaults(strings defaults: [String: String]) {
        state.withLock { $0.defaults = defaults }
    }

    /// Replaces the in-app defaults with a `.plist` or `.json` file from `remoteConfig:downloadDefaults`.
    public func setDefaults(contentsOf url: URL) throws {
        let strings = try DefaultsParser.parseFile(at: url)
        state.withLock { $0.defaults = strings }
    }

    /// Replaces the in-app defaults with a property list (`downloadDefaults?format=PLIST`).
    public func setDefaults(plistData data: Data) throws {
        let strings = try DefaultsParser.parsePropertyList(data)
        state.withLock { $0.defaults = strings }
    }

    /// Replaces the in-app defaults with a JSON object (`downloadDefaults?format=JSON`).
    public func setDefaults(jsonData data: Data) throws {
        let strings = try DefaultsParser.parseJSON(data)
        state.withLock { $0.defaults = strings }
    }

    /// Firebase's call: loads `<fileName>.plist` from a bundle; returns `false` when it is missing or unreadable.
    @discardableResult
    public func setDefaults(fromPlist fileName: String?, bundle: Bundle = .main) -> Bool {
        guard let fileName, let url = bundle.url(forResource: fileName, withExtension: "plist") else { return false }
        return (try? setDefaults(contentsOf: url)) != nil
    }

    /// Loads `<fileName>.json` from a bundle; returns `false` when it is missing or unreadable.
    @discardableResult
    public func setDefaults(fromJSON fileName: String?, bundle: Bundle = .main) -> Bool {
        guard let fileName, let url = bundle.url(forResource: fileName, withExtension: "json") else { return false }
        return (try? setDefaults(contentsOf: url)) != nil
    }

    // MARK: Custom signals

    /// Merges custom signals sent with every fetch (`app.customSignal['key']`); a `nil` value removes a signal.
    public func setCustomSignals(_ signals: [String: CustomSignalValue?]) {
        state.withLock { state in
            for (key, value) in signals {
                state.persisted.customSignals[key] = value
            }
            stateFile.save(state.persisted)
        }
    }

    /// The custom signals sent with every fetch.
    public var customSignals: [String: CustomSignalValue] { state.withLock { $0.persisted.customSignals } }
}

/// What a `RemoteConfig` holds in memory, guarded by its lock.
struct RuntimeState: Sendable {
    var persisted: PersistentState
    var settings: RemoteConfigSettings
    var defaults: [String: String] = [:]
    var forceUpdateKeys = ForceUpdateKeys()
    var updatePromptPolicy = UpdatePromptPolicy.everyLaunch
    var inFlightFetch: Task<FetchOutcome, any Error>?
}
