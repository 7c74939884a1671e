/// What one answer (one caller signature of one template) counts for: each parameter's source, and the
/// conditions that were true. Made once per signature, with the answer, so counting a call is counting the
/// answer it got.
public final class AnswerTally: Sendable {
    /// One parameter's value and what decided it.
    public struct Source: Sendable, Hashable {
        /// The parameter key.
        public let parameter: String
        /// `CONDITION`, `DEFAULT` or `IN_APP_DEFAULT`.
        public let source: Explanation.Source
        /// The deciding condition, for `CONDITION` (and an in-app default a condition chose).
        public let condition: String?

        /// Creates a source.
        public init(parameter: String, source: Explanation.Source, condition: String?) {
            self.parameter = parameter
            self.source = source
            self.condition = condition
        }
    }

    /// Every served parameter, in serving order.
    public let sources: [Source]
    /// The conditions some parameter refers to that were true for these callers, in template order.
    public let matchedConditions: [String]

    /// Creates a tally.
    public init(sources: [Source], matchedConditions: [String]) {
        self.sources = sources
        self.matchedConditions = matchedConditions
    }

    /// Nothing published: no parameter, no condition.
    public static let empty = AnswerTally(sources: [], matchedConditions: [])
}

extension CompiledTemplate {
    /// What an answer to callers with `signature` counts for. Only conditions some parameter refers to are
    /// evaluated for a fetch, so only those can be counted as matched.
    public func tally(_ signature: MatchSignature) -> AnswerTally {
        let sources = outcomes(signature).map { outcome in
            AnswerTally.Source(
                parameter: outcome.key, source: outcome.condition == nil ? outcome.source : .condition,
                condition: outcome.condition)
        }
        var matched: [String] = []
        for (bit, condition) in usedConditions.enumerated() where signature.contains(bit) {
            matched.append(conditions[Int(condition)].name)
        }
        return AnswerTally(sources: sources, matchedConditions: matched)
    }
}
