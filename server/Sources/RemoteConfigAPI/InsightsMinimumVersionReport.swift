/// `GET …/insights/minimumVersion`: how high one platform's minimum version can go within a blocked share, and
/// when newer versions are expected to get there. Shared by the server, which writes it, and the command line.
public struct InsightsMinimumVersionReport: Sendable, Codable, Equatable {
    /// The minimum as the published template answers it for the platform's newest version.
    public struct Current: Sendable, Codable, Equatable {
        public var parameter: String
        public var value: String
        public var blockedShare: Double
        public var blockedInstances: Int

        /// Creates the current minimum's figures.
        public init(parameter: String, value: String, blockedShare: Double, blockedInstances: Int) {
            self.parameter = parameter
            self.value = value
            self.blockedShare = blockedShare
            self.blockedInstances = blockedInstances
        }
    }

    /// The newest version seen whose blocked share is within the asked share.
    public struct Recommended: Sendable, Codable, Equatable {
        public var version: String
        public var blockedShare: Double
        public var blockedInstances: Int

        /// Creates the recommendation.
        public init(version: String, blockedShare: Double, blockedInstances: Int) {
            self.version = version
            self.blockedShare = blockedShare
            self.blockedInstances = blockedInstances
        }
    }

    /// A newer version, and the day its blocked share is expected to fall to the asked share.
    public struct Forecast: Sendable, Codable, Equatable {
        public var version: String
        public var blockedShare: Double
        /// `YYYY-MM-DD` (UTC); nil when the share is not falling or there are too few days.
        public var reachesMaxBlockedShare: String?
        public var basedOnDays: Int

        /// Creates one version's forecast.
        public init(version: String, blockedShare: Double, reachesMaxBlockedShare: String?, basedOnDays: Int) {
            self.version = version
            self.blockedShare = blockedShare
            self.reachesMaxBlockedShare = reachesMaxBlockedShare
            self.basedOnDays = basedOnDays
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(version, forKey: .version)
            try container.encode(blockedShare, forKey: .blockedShare)
            // Written as null rather than left out: "no date" is an answer.
            try container.encode(reachesMaxBlockedShare, forKey: .reachesMaxBlockedShare)
            try container.encode(basedOnDays, forKey: .basedOnDays)
        }
    }

    public var platform: String
    /// The window's start, RFC 3339.
    public var since: String
    public var activeInstances: Int
    public var current: Current?
    public var recommended: Recommended?
    /// Instances whose version cannot be compared, counted as blocked in every figure.
    public var unknownShare: Double
    public var forecast: [Forecast]

    /// Creates a report.
    public init(
        platform: String, since: String, activeInstances: Int, current: Current?, recommended: Recommended?,
        unknownShare: Double, forecast: [Forecast]
    ) {
        self.platform = platform
        self.since = since
        self.activeInstances = activeInstances
        self.current = current
        self.recommended = recommended
        self.unknownShare = unknownShare
        self.forecast = forecast
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(platform, forKey: .platform)
        try container.encode(since, forKey: .since)
        try container.encode(activeInstances, forKey: .activeInstances)
        try container.encode(current, forKey: .current)
        try container.encode(recommended, forKey: .recommended)
        try container.encode(unknownShare, forKey: .unknownShare)
        try container.encode(forecast, forKey: .forecast)
    }
}
