/// The serving tables of one compiled template that a tally reads its sources from (`AnswerTally`): shared
/// by every tally of the template, so a tally itself is only a signature and the rules that decided.
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

    /// The rules that decided a served parameter for callers with `signature`: what counting an answer
    /// increments (`SourceCounts`). A parameter no rule decided has none; its count is the answers less its
    /// rules' counts. Worked out once per answer, with it (`AnswerTally`), so that counting each call of it
    /// tests no rule.
    func decidingRules(_ signature: MatchSignature) -> RuleSet {
        var decided = RuleSet(count: rules.count)
        for position in slots.indices {
            if let rule = decidingRule(signature, position) { decided.insert(Int(rule)) }
        }
        return decided
    }

    /// The rule that decided the parameter at `position` for callers with `signature`, nil when none did.
    func decidingRule(_ signature: MatchSignature, _ position: Int) -> Int32? {
        let slot = slots[position]
        for rule in Int(slot.ruleStart)..<Int(slot.ruleEnd) where signature.contains(Int(rules[rule].bit)) {
            return Int32(rule)
        }
        return nil
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
        guard let rule = decidingRule(signature, position) else {
            let source: Explanation.Source = slots[position].defaultValue < 0 ? .inAppDefault : .defaultValue
            return AnswerTally.Source(parameter: keys[position], source: source, condition: nil)
        }
        // A condition that chose the in-app default still decided: it counts as the condition's.
        return AnswerTally.Source(
            parameter: keys[position], source: .condition, condition: conditionNames[Int(rules[Int(rule)].condition)])
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
