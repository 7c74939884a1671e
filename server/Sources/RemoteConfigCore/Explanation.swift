/// What a caller gets and why: each parameter's value and where it came from, and each condition's truth.
/// Built by the same tables as a fetch answer, so a preview can never disagree with a fetch.
public struct Explanation: Sendable {
    /// Where a parameter's value came from.
    public enum Source: String, Sendable {
        /// A condition's conditional value.
        case condition = "CONDITION"
        /// The parameter's default value.
        case defaultValue = "DEFAULT"
        /// Nothing is sent: the app's own default applies (`useInAppDefault`, or a value kind not served).
        case inAppDefault = "IN_APP_DEFAULT"
    }

    /// One parameter's outcome.
    public struct Outcome: Sendable, Hashable {
        /// The parameter key.
        public var key: String
        /// The value sent, or nil when the app's own default applies.
        public var value: String?
        /// Where the value came from.
        public var source: Source
        /// The condition that decided, when one did (also when it chose the in-app default).
        public var condition: String?
    }

    /// What a fetch answers for this caller.
    public var result: FetchResult
    /// Every parameter, in serving order (top-level, then groups).
    public var parameters: [Outcome]
    /// Every condition's truth for this caller, in template order.
    public var conditions: [(name: String, truth: ConditionTruth)]
}

extension CompiledTemplate {
    /// What `context` gets from this template, and why.
    public func explain(_ context: FetchContext) -> Explanation {
        let signature = signature(for: context)
        return Explanation(
            result: resolve(signature), parameters: outcomes(signature), conditions: evaluateConditions(context))
    }

    /// Every parameter's outcome, in serving order, for callers with this signature: the same tables and
    /// the same first-true-condition rule as `resolve(_:)`, with the deciding condition kept.
    public func outcomes(_ signature: MatchSignature) -> [Explanation.Outcome] {
        var outcomes: [Explanation.Outcome] = []
        outcomes.reserveCapacity(slots.count)
        for (position, slot) in slots.enumerated() {
            var value = slot.defaultValue
            var decidedBy: Int32?
            for rule in rules[Int(slot.ruleStart)..<Int(slot.ruleEnd)] where signature.contains(Int(rule.bit)) {
                value = rule.value
                decidedBy = rule.condition
                break
            }
            let source: Explanation.Source =
                value < 0 ? .inAppDefault : decidedBy == nil ? .defaultValue : .condition
            outcomes.append(
                Explanation.Outcome(
                    key: keys[position], value: value < 0 ? nil : values[Int(value)], source: source,
                    condition: decidedBy.map { conditions[Int($0)].name }))
        }
        return outcomes
    }
}
