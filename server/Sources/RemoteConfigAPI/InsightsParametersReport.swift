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
