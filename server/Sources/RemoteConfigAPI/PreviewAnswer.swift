/// `POST …/remoteConfig:evaluate`: what a fetch with the given context would answer, and why. Parameters and
/// conditions come in the template's order.
public struct PreviewAnswer: Codable, Sendable, Equatable {
    /// How one parameter got its value.
    public struct Parameter: Codable, Sendable, Equatable {
        /// `CONDITION`, `DEFAULT` or `IN_APP_DEFAULT` (the app keeps its own default).
        public var source: String
        /// Absent when the app keeps its own default.
        public var value: String?
        /// The condition that chose the value, when one did.
        public var condition: String?

        /// Creates a parameter's outcome.
        public init(source: String, value: String? = nil, condition: String? = nil) {
            self.source = source
            self.value = value
            self.condition = condition
        }
    }

    /// The fetch answer's entries.
    public var entries: OrderedMembers<String>
    /// The fetch answer's state, as a fetch writes it (`NO_TEMPLATE` when nothing is published).
    public var state: String
    public var parameters: OrderedMembers<Parameter>
    /// Each condition's truth; null when an input it needs was not sent.
    public var conditions: OrderedMembers<Bool?>
    /// Absent when nothing is published.
    public var templateVersion: String?

    /// Creates an answer.
    public init(
        entries: OrderedMembers<String>, state: String, parameters: OrderedMembers<Parameter>,
        conditions: OrderedMembers<Bool?>, templateVersion: String? = nil
    ) {
        self.entries = entries
        self.state = state
        self.parameters = parameters
        self.conditions = conditions
        self.templateVersion = templateVersion
    }
}
