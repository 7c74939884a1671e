/// Answers of one template added up by what decided each parameter and by matched condition, as integers by
/// position in the template's serving tables (`TallyTables`): a rule, a parameter's default, a used
/// condition. Counting an answer is then a walk over its parameters with an increment each (one AND of the
/// signature per parameter no rule decides), no string hashed; names are looked up only when the counts are
/// read, once per flush.
struct SourceCounts: Sendable {
    let tables: TallyTables
    /// Per rule (`tables.rules` position): answers whose parameter that rule decided.
    private var decided: [Int]
    /// Per parameter (serving position): answers whose parameter no rule decided (its default value or the
    /// app's in-app default).
    private var undecided: [Int]
    /// Per used condition (its signature bit): answers it was true for.
    private var matched: [Int]

    init(tables: TallyTables) {
        self.tables = tables
        decided = [Int](repeating: 0, count: tables.rules.count)
        undecided = [Int](repeating: 0, count: tables.slots.count)
        matched = [Int](repeating: 0, count: tables.usedConditions.count)
    }

    /// Adds `count` answers to callers with `signature`: every parameter (`position` nil) or the one at
    /// serving position `position` (an OFREP single flag; none past the last), and the true conditions.
    mutating func add(_ signature: MatchSignature, position: Int?, count: Int) {
        let slots = tables.slots
        let rules = tables.rules
        if position == nil, signature.isInline, let masks = tables.ruleMasks, matched.count <= 64 {
            // Every parameter, each tested with one AND: this runs once per answer.
            let bits = signature.inlineBits
            for position in slots.indices {
                if bits & masks[position] == 0 {
                    undecided[position] += count
                } else {
                    addSource(signature, slots[position], position, rules, count)
                }
            }
            var used = matched.count == 64 ? bits : bits & ((1 << UInt64(matched.count)) - 1)
            while used != 0 {
                matched[used.trailingZeroBitCount] += count
                used &= used - 1
            }
            return
        }
        if let position {
            if position < slots.count { addSource(signature, slots[position], position, rules, count) }
        } else {
            for position in slots.indices { addSource(signature, slots[position], position, rules, count) }
        }
        for bit in matched.indices where signature.contains(bit) { matched[bit] += count }
    }

    private mutating func addSource(
        _ signature: MatchSignature, _ slot: CompiledTemplate.Slot, _ position: Int, _ rules: [CompiledTemplate.Rule],
        _ count: Int
    ) {
        // The first rule whose condition holds decides, as `TallyTables.source` and serving decide it.
        for rule in Int(slot.ruleStart)..<Int(slot.ruleEnd) where signature.contains(Int(rules[rule].bit)) {
            decided[rule] += count
            return
        }
        undecided[position] += count
    }

    /// Calls `body` with each non-zero count under its names (`InsightCounts.SourceKey`).
    func forEachCount(_ body: (InsightCounts.SourceKey, Int) -> Void) {
        for (position, slot) in tables.slots.enumerated() {
            let parameter = tables.keys[position]
            for rule in Int(slot.ruleStart)..<Int(slot.ruleEnd) where decided[rule] > 0 {
                let condition = tables.conditionNames[Int(tables.rules[rule].condition)]
                body(
                    InsightCounts.SourceKey(
                        parameter: parameter, source: Explanation.Source.condition.rawValue, condition: condition),
                    decided[rule])
            }
            if undecided[position] > 0 {
                let source: Explanation.Source = slot.defaultValue < 0 ? .inAppDefault : .defaultValue
                body(
                    InsightCounts.SourceKey(parameter: parameter, source: source.rawValue, condition: ""),
                    undecided[position])
            }
        }
        for (bit, condition) in tables.usedConditions.enumerated() where matched[bit] > 0 {
            body(
                InsightCounts.SourceKey(parameter: nil, source: "", condition: tables.conditionNames[Int(condition)]),
                matched[bit])
        }
    }
}
