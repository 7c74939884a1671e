import Foundation

/// One set of values from the server.
struct ConfigSnapshot: Codable, Hashable, Sendable {
    /// The values, as strings.
    var entries: [String: String]
    /// `UPDATE`, `NO_TEMPLATE` or `EMPTY_CONFIG`.
    var state: String
    /// The template version the server reported, if any.
    var templateVersion: String?
    /// The `ETag` of the answer, sent back as `If-None-Match`.
    var etag: String?
    /// When these values were received.
    var fetchTime: Date
    /// The app version the server evaluated these values for; `nil` in state saved by SDKs before 1.1.
    var appVersion: String? = nil
    /// The app build the server evaluated these values for.
    var appBuild: String? = nil

    /// Whether two snapshots hold the same values (ignoring when, how and for which app version they arrived).
    func hasSameValues(as other: ConfigSnapshot?) -> Bool {
        guard let other else { return false }
        return entries == other.entries && templateVersion == other.templateVersion && state == other.state
    }

    /// Whether the server decided these values for this app version and build. Values from before an app update
    /// were decided for the old version: `app.version` conditions (a forced update of a broken release) no longer
    /// hold. An unknown version counts as another one.
    func wasFetched(for app: AppIdentity, version: String? = nil) -> Bool {
        appVersion == (version ?? app.version) && appBuild == app.build
    }
}

/// Everything the SDK keeps across launches, saved as one JSON file.
struct PersistentState: Codable, Sendable {
    /// Generated on first use and never changed.
    var appInstanceId: String
    /// The values in use.
    var active: ConfigSnapshot?
    /// The last values fetched, active or not yet.
    var fetched: ConfigSnapshot?
    /// When the last network fetch succeeded (200 or 304); the throttle counts from here.
    var lastSuccessfulFetchTime: Date?
    /// When the last fetch completed, successfully or not.
    var lastFetchTime: Date?
    /// The outcome of the last fetch.
    var lastFetchStatus: RemoteConfigFetchStatus = .noFetchYet
    /// The request body of the last successful fetch; a change (new app version, signals) skips the throttle.
    var lastFetchRequestBody: Data?
    /// No request before this time (server asked to back off).
    var backoffUntil: Date?
    /// How many 429/503 answers came in a row; drives the exponential backoff without `Retry-After`.
    var consecutiveBackoffs: Int = 0
    /// The newest template version the stream announced that a fetch has caught up with.
    var confirmedTemplateVersion: Int?
    /// Custom signals sent with every fetch.
    var customSignals: [String: CustomSignalValue] = [:]
    /// Optional-update versions the user dismissed.
    var dismissedUpdateVersions: [String] = []
    /// The last optional update the app reported showing; `updatePromptPolicy` counts from it.
    var lastUpdatePrompt: UpdatePromptRecord?

    /// A fresh state with a new app instance id.
    static func fresh() -> PersistentState {
        PersistentState(appInstanceId: UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())
    }
}

/// Loads and saves `PersistentState` in the storage directory.
struct StateFile: Sendable {
    /// The file's location.
    let url: URL

    init(directory: URL) {
        self.url = directory.appendingPathComponent("remote-config-state.json")
    }

    /// The saved state, or a fresh one when there is none or it cannot be read.
    func load() -> PersistentState {
        guard let data = try? Data(contentsOf: url),
            let state = try? Self.decoder.decode(PersistentState.self, from: data)
        else { return .fresh() }
        return state
    }

    /// Saves atomically; failures are ignored (the in-memory state stays right, the next save tries again).
    func save(_ state: PersistentState) {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Self.encoder.encode(state).write(to: url, options: [.atomic])
        } catch {
            // Losing one save costs at most a refetch; the app keeps working with the values in memory.
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }()
}
