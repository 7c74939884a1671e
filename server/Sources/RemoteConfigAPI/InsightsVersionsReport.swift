/// `GET …/insights/versions`: answers and distinct instances by platform and version. Shared by the server,
/// which writes it, and the command line, which reads it.
public struct InsightsVersionsReport: Sendable, Codable, Equatable {
    /// One platform's figures.
    public struct Platform: Sendable, Codable, Equatable {
        public var platform: String
        public var activeInstances: Int
        public var answers: Int
        /// Newest first by version order, `(other)` and `(invalid)` last.
        public var versions: [Version]

        /// Creates a platform's figures.
        public init(platform: String, activeInstances: Int, answers: Int, versions: [Version]) {
            self.platform = platform
            self.activeInstances = activeInstances
            self.answers = answers
            self.versions = versions
        }
    }

    /// One version's figures; `share` is of the platform's active instances.
    public struct Version: Sendable, Codable, Equatable {
        public var version: String
        public var activeInstances: Int
        public var share: Double
        public var answers: Int

        /// Creates a version's figures.
        public init(version: String, activeInstances: Int, share: Double, answers: Int) {
            self.version = version
            self.activeInstances = activeInstances
            self.share = share
            self.answers = answers
        }
    }

    /// False when the server runs with `--insights off`: then there is no data.
    public var enabled: Bool
    /// The window, RFC 3339.
    public var since: String
    public var until: String
    public var platforms: [Platform]

    /// Creates a report.
    public init(enabled: Bool, since: String, until: String, platforms: [Platform]) {
        self.enabled = enabled
        self.since = since
        self.until = until
        self.platforms = platforms
    }
}
