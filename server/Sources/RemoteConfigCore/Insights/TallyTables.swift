/// The serving tables of one compiled template that a tally reads its sources from (`AnswerTally`): shared
/// by every tally of the template, so a tally itself is only a signature and its counters.
final class TallyTables: Sendable {
    let keys: [String]
    let slots: [CompiledTemplate.Slot]
    let rules: [CompiledTemplate.Rule]
    let conditionNames: [String]
    let usedConditions: [Int32]

    init(
        keys: [String], slots: [CompiledTemplate.Slot], rules: [CompiledTemplate.Rule], conditionNames: [String],
        usedConditions: [Int32]
    ) {
        self.keys = keys
        self.slots = slots
        self.rules = rules
        self.conditionNames = conditionNames
        self.usedConditions = usedConditions
    }

    /// Each served parameter's counter in `SourceCounts` for callers with `signature`: the position of the
    /// rule that decided it, or past the rules, `rules.count` + its own position when none did. Worked out once
    /// per answer, with it (`AnswerTally`), so that counting each call of it tests no rule.
    func counters(_ signature: MatchSignature) -> [Int32] {
        var counters: [Int32] = []
        counters.reserveCapacity(slots.count)
        for (position, slot) in slots.enumerated() {
            var counter = Int32(rules.count + position)
            for rule in Int(slot.ruleStart)..<Int(slot.ruleEnd) where signature.contains(Int(rules[rule].bit)) {
                counter = Int32(rule)
                break
            }
            counters.append(counter)
        }
        return counters
    }

    /// Each served parameter's source for callers with `signature`, as `CompiledTemplate.outcomes` decides it.
    func sources(_ signature: MatchSignature) -> [AnswerTally.Source] {
        var sources: [AnswerTally.Source] = []
        sources.reserveCapacity(slots.count)
        forEachSource(signature) { sources.append($0) }
        return sources
    }

    /// Calls `body` with each served parameter's source for callers with `signature`, in serving order.
    func forEachSource(_ signature: MatchSignature, _ body: (AnswerTally.Source) -> Void) {
        for position in slots.indices { body(source(signature, position)) }
    }

    /// The source of the parameter at `position` for callers with `signature`; nil past the last.
    func source(_ signature: MatchSignature, at position: Int) -> AnswerTally.Source? {
        position < slots.count ? source(signature, position) : nil
    }

    private func source(_ signature: MatchSignature, _ position: Int) -> AnswerTally.Source {
        let slot = slots[position]
        var value = slot.defaultValue
        var decidedBy: Int32?
        for rule in rules[Int(slot.ruleStart)..<Int(slot.ruleEnd)] where signature.contains(Int(rule.bit)) {
            value = rule.value
            decidedBy = rule.condition
            break
        }
        // A condition that chose the in-app default still decided: it counts as the condition's.
        let source: Explanation.Source = decidedBy != nil ? .condition : value < 0 ? .inAppDefault : .defaultValue
        return AnswerTally.Source(
            parameter: keys[position], source: source, condition: decidedBy.map { conditionNames[Int($0)] })
    }

    /// The used conditions true for callers with `signature`, in template order.
    func matchedConditions(_ signature: MatchSignature) -> [String] {
        var matched: [String] = []
        for (bit, condition) in usedConditions.enumerated() where signature.contains(bit) {
            matched.append(conditionNames[Int(condition)])
        }
        return matched
    }
}
