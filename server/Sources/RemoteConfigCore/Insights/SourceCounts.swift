/// Answers of one template added up by what decided each parameter and by matched condition, as integers by
/// position in the template's serving tables (`TallyTables`): a rule, a parameter's default, a used
/// condition. Counting an answer is then an increment per parameter at the counter its tally names, no rule
/// tested and no string hashed; names are looked up only when the counts are read, once per flush.
struct SourceCounts: Sendable {
    let tables: TallyTables
    /// Per counter (`TallyTables.counters`): first per rule (`tables.rules` position), answers whose parameter
    /// that rule decided; then per parameter (serving position), answers whose parameter no rule decided (its
    /// default value or the app's in-app default).
    private var sources: [Int]
    /// Per used condition (its signature bit): answers it was true for.
    private var matched: [Int]

    init(tables: TallyTables) {
        self.tables = tables
        sources = [Int](repeating: 0, count: tables.rules.count + tables.slots.count)
        matched = [Int](repeating: 0, count: tables.usedConditions.count)
    }

    /// Adds `count` answers to callers with `signature`, whose parameters' counters are `counters` (their
    /// tally's, `TallyTables.counters`): every parameter (`position` nil) or the one at serving position
    /// `position` (an OFREP single flag; none past the last), and the true conditions.
    mutating func add(_ signature: MatchSignature, counters: [Int32], position: Int?, count: Int) {
        if let position {
            if position < counters.count { sources[Int(counters[position])] += count }
        } else {
            // One increment per parameter, where its answer's tally says: this runs once per answer.
            sources.withUnsafeMutableBufferPointer { sources in
                counters.withUnsafeBufferPointer { counters in
                    for counter in counters { sources[Int(counter)] += count }
                }
            }
        }
        if signature.isInline, matched.count <= 64 {
            let bits = signature.inlineBits
            var used = matched.count == 64 ? bits : bits & ((1 << UInt64(matched.count)) - 1)
            while used != 0 {
                matched[used.trailingZeroBitCount] += count
                used &= used - 1
            }
        } else {
            for bit in matched.indices where signature.contains(bit) { matched[bit] += count }
        }
    }

    /// Calls `body` with each non-zero count under its names (`InsightCounts.SourceKey`).
    func forEachCount(_ body: (InsightCounts.SourceKey, Int) -> Void) {
        for (position, slot) in tables.slots.enumerated() {
            let parameter = tables.keys[position]
            for rule in Int(slot.ruleStart)..<Int(slot.ruleEnd) where sources[rule] > 0 {
                let condition = tables.conditionNames[Int(tables.rules[rule].condition)]
                body(
                    InsightCounts.SourceKey(
                        parameter: parameter, source: Explanation.Source.condition.rawValue, condition: condition),
                    sources[rule])
            }
            let undecided = sources[tables.rules.count + position]
            if undecided > 0 {
                let source: Explanation.Source = slot.defaultValue < 0 ? .inAppDefault : .defaultValue
                body(
                    InsightCounts.SourceKey(parameter: parameter, source: source.rawValue, condition: ""),
                    undecided)
            }
        }
        for (bit, condition) in tables.usedConditions.enumerated() where matched[bit] > 0 {
            body(
                InsightCounts.SourceKey(parameter: nil, source: "", condition: tables.conditionNames[Int(condition)]),
                matched[bit])
        }
    }
}
