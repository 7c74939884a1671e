/// `GET …/insights/timeline`: distinct instances per hour or day, in all and per version, oldest first.
public struct InsightsTimelineReport: Sendable, Codable, Equatable {
    /// One hour or day.
    public struct Bucket: Sendable, Codable, Equatable {
        /// RFC 3339.
        public var start: String
        public var activeInstances: Int
        /// Instances per version.
        public var versions: [String: Int]
        /// `COUNTED` (from fetches) or `IMPORTED` (any of its figures from `insights:import`).
        public var source: String?

        /// Creates a bucket.
        public init(start: String, activeInstances: Int, versions: [String: Int], source: String? = "COUNTED") {
            self.start = start
            self.activeInstances = activeInstances
            self.versions = versions
            self.source = source
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
