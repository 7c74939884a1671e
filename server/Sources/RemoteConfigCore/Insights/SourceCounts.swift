/// Answers of one template added up by what decided each parameter and by matched condition, as integers by
/// position in the template's serving tables (`TallyTables`): a rule, a used condition. Counting an answer is
/// then an increment per parameter a rule decided, at the rule its tally names, no rule tested and no string
/// hashed; names are looked up only when the counts are read, once per flush.
struct SourceCounts: Sendable {
    let tables: TallyTables
    /// Per rule (`tables.rules` position): answers whose parameter that rule decided.
    private var decided: [Int]
    /// Answers counted for every parameter.
    private var answers = 0
    /// Per parameter (serving position): answers counted for it alone (an OFREP single flag); empty until one
    /// is. A parameter's answers no rule decided (its default value or the app's in-app default) are then
    /// `answers` and its own, less its rules' counts: counting does not touch the parameters no rule decided,
    /// most of a template's for most callers.
    private var single: [Int] = []
    /// Per used condition (its signature bit): answers it was true for.
    private var matched: [Int]

    init(tables: TallyTables) {
        self.tables = tables
        decided = [Int](repeating: 0, count: tables.rules.count)
        matched = [Int](repeating: 0, count: tables.usedConditions.count)
    }

    /// Adds `count` answers to callers with `signature`, whose deciding rules are `rules` (their tally's,
    /// `TallyTables.decidingRules`): for every parameter (`position` nil) or for the one at serving position
    /// `position` (an OFREP single flag; none past the last), and the true conditions.
    mutating func add(_ signature: MatchSignature, rules: RuleSet, position: Int?, count: Int) {
        if let position {
            if position < tables.slots.count {
                if single.isEmpty { single = [Int](repeating: 0, count: tables.slots.count) }
                single[position] += count
                if let rule = tables.decidingRule(signature, position) { decided[Int(rule)] += count }
            }
        } else {
            answers += count
            // One increment per parameter a rule decided: this runs once per answer.
            decided.withUnsafeMutableBufferPointer { decided in
                for rule in rules { decided[rule] += count }
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
            var undecided = answers + (single.isEmpty ? 0 : single[position])
            for rule in Int(slot.ruleStart)..<Int(slot.ruleEnd) where decided[rule] > 0 {
                let condition = tables.conditionNames[Int(tables.rules[rule].condition)]
                body(
                    InsightCounts.SourceKey(
                        parameter: parameter, source: Explanation.Source.condition.rawValue, condition: condition),
                    decided[rule])
                undecided -= decided[rule]
            }
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
