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

/// `GET …/insights/parameters`: the share of answers each parameter's value came from each source, and
/// each condition's matches.
public struct InsightsParametersReport: Sendable, Codable, Equatable {
    /// One source of a parameter's value.
    public struct Source: Sendable, Codable, Equatable {
        /// `CONDITION`, `DEFAULT` or `IN_APP_DEFAULT`.
        public var source: String
        /// The deciding condition, for `CONDITION`.
        public var condition: String?
        public var answers: Int
        /// Of all answers in the window.
        public var share: Double

        /// Creates a source.
        public init(source: String, condition: String?, answers: Int, share: Double) {
            self.source = source
            self.condition = condition
            self.answers = answers
            self.share = share
        }
    }

    /// One parameter's sources, most answers first.
    public struct Parameter: Sendable, Codable, Equatable {
        public var sources: [Source]

        /// Creates a parameter's sources.
        public init(sources: [Source]) { self.sources = sources }
    }

    /// The answers a condition was true for.
    public struct Condition: Sendable, Codable, Equatable {
        public var matched: Int
        public var share: Double

        /// Creates a condition's figures.
        public init(matched: Int, share: Double) {
            self.matched = matched
            self.share = share
        }
    }

    public var enabled: Bool
    public var since: String
    public var until: String
    /// Every client answer in the window.
    public var answers: Int
    public var parameters: [String: Parameter]
    public var conditions: [String: Condition]

    /// Creates a report.
    public init(
        enabled: Bool, since: String, until: String, answers: Int, parameters: [String: Parameter],
        conditions: [String: Condition]
    ) {
        self.enabled = enabled
        self.since = since
        self.until = until
        self.answers = answers
        self.parameters = parameters
        self.conditions = conditions
    }
}

/// `GET …/insights/timeline`: distinct instances per hour or day, in all and per version, oldest first.
public struct InsightsTimelineReport: Sendable, Codable, Equatable {
    /// One hour or day.
    public struct Bucket: Sendable, Codable, Equatable {
        /// RFC 3339.
        public var start: String
        public var activeInstances: Int
        /// Distinct instances per version.
        public var versions: [String: Int]

        /// Creates a bucket.
        public init(start: String, activeInstances: Int, versions: [String: Int]) {
            self.start = start
            self.activeInstances = activeInstances
            self.versions = versions
        }
    }

    public var enabled: Bool
    public var since: String
    public var until: String
    /// `HOUR` or `DAY`.
    public var bucket: String
    public var buckets: [Bucket]

    /// Creates a report.
    public init(enabled: Bool, since: String, until: String, bucket: String, buckets: [Bucket]) {
        self.enabled = enabled
        self.since = since
        self.until = until
        self.bucket = bucket
        self.buckets = buckets
    }
}
