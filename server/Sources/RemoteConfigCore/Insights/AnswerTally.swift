/// What one answer (one caller signature of one template) counts for: each parameter's source, and the
/// conditions that were true. Made once per signature, with the answer, so counting a call is counting the
/// answer it got.
///
/// A tally is small: a signature, its template's shared tables, and the rules that decided a parameter (a bit
/// each, held with the answer); its sources are worked out from the tables when they are read (they
/// were a list of every parameter, 2 KB for a template of 50, which 200 projects' counts held by the hundred
/// megabytes while they kept tallies to add up).
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

    private enum Storage: Sendable {
        case listed(sources: [Source], matched: [String])
        case signature(MatchSignature, TallyTables)
    }
    private let storage: Storage
    /// The rules that decided a parameter (`TallyTables.decidingRules`); empty for a tally made from a list.
    /// Apart from `storage`, so that counting reads it in place rather than copying it out of the enum.
    let decided: RuleSet

    /// Creates a tally from its sources and matched conditions.
    public init(sources: [Source], matchedConditions: [String]) {
        storage = .listed(sources: sources, matched: matchedConditions)
        decided = RuleSet(count: 0)
    }

    init(signature: MatchSignature, tables: TallyTables) {
        storage = .signature(signature, tables)
        decided = tables.decidingRules(signature)
    }

    /// The signature and its template's tables, for a tally made by `CompiledTemplate.tally`: what counting
    /// adds up by position (`SourceCounts`, at `decided`). Nil for a tally made from a list.
    var signed: (signature: MatchSignature, tables: TallyTables)? {
        if case .signature(let signature, let tables) = storage { return (signature, tables) }
        return nil
    }

    /// About how many bytes this tally holds beyond what its template shares (an answer's weight).
    public var bytes: Int {
        80 + decided.extraBytes
    }

    /// Every served parameter, in serving order.
    public var sources: [Source] {
        switch storage {
        case .listed(let sources, _): return sources
        case .signature(let signature, let tables): return tables.sources(signature)
        }
    }

    /// Calls `body` with each served parameter's source, in serving order, without making a list of them
    /// (counting adds up every distinct listed answer's sources).
    public func forEachSource(_ body: (Source) -> Void) {
        switch storage {
        case .listed(let sources, _): sources.forEach(body)
        case .signature(let signature, let tables): tables.forEachSource(signature, body)
        }
    }

    /// The source of the parameter at serving position `position`, nil past the last.
    public func source(at position: Int) -> Source? {
        switch storage {
        case .listed(let sources, _): return position < sources.count ? sources[position] : nil
        case .signature(let signature, let tables): return tables.source(signature, at: position)
        }
    }

    /// The conditions some parameter refers to that were true for these callers, in template order.
    public var matchedConditions: [String] {
        switch storage {
        case .listed(_, let matched): return matched
        case .signature(let signature, let tables): return tables.matchedConditions(signature)
        }
    }

    /// Nothing published: no parameter, no condition.
    public static let empty = AnswerTally(sources: [], matchedConditions: [])
}

extension CompiledTemplate {
    /// What an answer to callers with `signature` counts for. Only conditions some parameter refers to are
    /// evaluated for a fetch, so only those can be counted as matched.
    public func tally(_ signature: MatchSignature) -> AnswerTally {
        AnswerTally(signature: signature, tables: tallyTables)
    }
}
