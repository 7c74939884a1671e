/// The serving tables of one compiled template that a tally reads its sources from (`AnswerTally`): shared
/// by every tally of the template, so a tally itself is only a signature.
final class TallyTables: Sendable {
    let keys: [String]
    let slots: [CompiledTemplate.Slot]
    let rules: [CompiledTemplate.Rule]
    let conditionNames: [String]
    let usedConditions: [Int32]
    /// Per slot, the signature bits of its rules; nil when a rule's bit is past the first 64. Counting an
    /// answer tests a parameter's rules with one AND (most parameters are decided by no rule).
    let ruleMasks: [UInt64]?

    init(
        keys: [String], slots: [CompiledTemplate.Slot], rules: [CompiledTemplate.Rule], conditionNames: [String],
        usedConditions: [Int32]
    ) {
        self.keys = keys
        self.slots = slots
        self.rules = rules
        self.conditionNames = conditionNames
        self.usedConditions = usedConditions
        var masks: [UInt64]? = []
        for slot in slots {
            var mask: UInt64 = 0
            for rule in rules[Int(slot.ruleStart)..<Int(slot.ruleEnd)] {
                guard rule.bit < 64 else {
                    masks = nil
                    break
                }
                mask |= 1 << UInt64(rule.bit)
            }
            guard masks != nil else { break }
            masks!.append(mask)
        }
        ruleMasks = masks
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
