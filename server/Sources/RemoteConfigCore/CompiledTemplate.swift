/// A published template prepared for serving: conditions compiled, parameters flattened, and
/// each parameter's conditional values put in template condition order. Build it once per
/// publish; `resolve` is then cheap and safe to call from any number of tasks.
public struct CompiledTemplate: Sendable {
    /// The template as published.
    public private(set) var template: RemoteConfigTemplate
    /// The conditions in template order.
    public let conditions: [CompiledCondition]
    /// The template-wide percent seed table.
    let seeds: [String]
    /// What the conditions that matter read from a caller (for fetch ETags).
    public let inputs: ConditionInputs

    // The serving tables are plain integers indexing into string tables, so the per-request
    // loop copies no reference-counted values except the strings it returns.

    /// The used conditions' expressions, laid out for evaluation; bit `i` is `usedConditions[i]`.
    let plan: ConditionPlan
    /// Parameter keys in serving order (top-level, then groups).
    let keys: [String]
    /// Every distinct served value; `Slot.defaultValue` and `Rule.value` index it.
    let values: [String]
    /// One per key.
    let slots: [Slot]
    /// All parameters' rules; a parameter's are `rules[ruleStart..<ruleEnd]`, in template
    /// condition order.
    let rules: [Rule]
    /// The conditions some rule refers to, in template order; bit `i` of a `MatchSignature` is
    /// `usedConditions[i]`.
    let usedConditions: [Int32]
    /// A rough count of the work `signature(for:)` does (atoms, regular expressions weighing more), so a
    /// server can keep templates at the limits off the threads that serve everyone else.
    public let evaluationCost: Int
    /// The bytes of every served key and value: more than any one answer holds, and what encoding and
    /// compressing an answer costs in proportion to.
    public let servedBytes: Int
    /// What every `AnswerTally` of this template reads its sources from.
    let tallyTables: TallyTables

    /// Where a parameter's default and rules are; `-1` as a value means "send nothing".
    struct Slot: Sendable {
        var defaultValue: Int32
        var ruleStart: Int32
        var ruleEnd: Int32
    }

    /// "If condition `condition` is true, the value is `value`"; `bit` is the condition's place in a
    /// `MatchSignature`.
    struct Rule: Sendable {
        var condition: Int32
        var value: Int32
        var bit: Int32 = 0
    }

    /// Compiles a template, or reports the first condition that does not parse.
    public init(_ template: RemoteConfigTemplate) throws(ConditionCompileError) {
        self.init(template, conditions: try compileConditions(template.conditions))
    }

    /// A template whose conditions are already compiled (by the validator, in template order).
    init(_ template: RemoteConfigTemplate, conditions: [CompiledCondition]) {
        self.template = template
        self.conditions = conditions
        self.seeds = conditions.last?.seeds ?? []

        var conditionIndex: [String: Int] = [:]
        for (index, condition) in conditions.enumerated() where conditionIndex[condition.name] == nil {
            conditionIndex[condition.name] = index
        }
        var valueTable = ValueTable()
        var keys: [String] = []
        var slots: [Slot] = []
        var rules: [Rule] = []
        var seenKeys = Set<String>()
        for (key, parameter, _) in template.allParameters where seenKeys.insert(key).inserted {
            var parameterRules: [Rule] = []
            for (name, value) in parameter.conditionalValues {
                // A value naming no condition, or of a kind we do not serve, never applies.
                guard let index = conditionIndex[name], let outcome = valueTable.index(of: value) else { continue }
                parameterRules.append(Rule(condition: Int32(index), value: outcome))
            }
            // Template condition order decides, not the order of `conditionalValues`.
            parameterRules.sort { $0.condition < $1.condition }
            let defaultValue = parameter.defaultValue.flatMap { valueTable.index(of: $0) } ?? -1
            let start = Int32(rules.count)
            rules.append(contentsOf: parameterRules)
            keys.append(key)
            slots.append(Slot(defaultValue: defaultValue, ruleStart: start, ruleEnd: Int32(rules.count)))
        }
        let used = Set(rules.map(\.condition)).sorted()
        var bitOfCondition: [Int32: Int32] = [:]
        for (bit, condition) in used.enumerated() { bitOfCondition[condition] = Int32(bit) }
        for index in rules.indices { rules[index].bit = bitOfCondition[rules[index].condition]! }
        self.keys = keys
        self.values = valueTable.values
        self.slots = slots
        self.rules = rules
        self.usedConditions = used
        self.plan = ConditionPlan(used.map { conditions[Int($0)].node })
        self.evaluationCost = used.reduce(0) { $0 + conditions[Int($1)].node.cost }
        self.servedBytes = (keys + valueTable.values).reduce(0) { $0 + $1.utf8.count }
        self.inputs = Self.inputs(conditions: conditions, usedConditions: Set(used.map(Int.init)))
        self.tallyTables = TallyTables(
            keys: keys, slots: slots, rules: rules, conditionNames: conditions.map(\.name), usedConditions: used)
    }

    /// Interns served strings; `-1` stands for `useInAppDefault`, `nil` for values not served.
    private struct ValueTable {
        var values: [String] = []
        var positions: [String: Int32] = [:]

        mutating func index(of value: ParameterValue) -> Int32? {
            switch value {
            case .useInAppDefault: return -1
            case .other: return nil
            case .value(let text):
                if let position = positions[text] { return position }
                let position = Int32(values.count)
                values.append(text)
                positions[text] = position
                return position
            }
        }
    }

    /// The same template, as version `number` (a publish learns its number from the store).
    public func versioned(_ number: Int64) -> CompiledTemplate {
        var copy = self
        copy.template.version = TemplateVersion(versionNumber: String(number))
        return copy
    }

    /// Every served parameter key, in serving order (top-level, then groups).
    public var parameterKeys: [String] { keys }

    /// The template's version number, if it has been published.
    public var versionNumber: String? { template.version?.versionNumber }

    /// What a fetch returns to this caller: entries in parameter order and the state.
    public func resolve(_ context: FetchContext) -> FetchResult {
        resolve(signature(for: context))
    }

    /// Which of the conditions that some parameter refers to select this caller. A fetch answer depends on
    /// nothing else, so callers with the same signature get the same answer: a server can remember answers
    /// by signature, whatever the caller's instance id, time or percent bucket.
    public func signature(for context: FetchContext) -> MatchSignature {
        var scratch = EvaluationScratch(context: context, seeds: seeds)
        var signature = MatchSignature(count: usedConditions.count)
        plan.evaluate(into: &signature, &scratch)
        return signature
    }

    /// The answer for callers with this signature.
    public func resolve(_ signature: MatchSignature) -> FetchResult {
        var entries: [ResolvedEntry] = []
        entries.reserveCapacity(slots.count)
        forEachServed(signature) { key, value in
            entries.append(ResolvedEntry(key: keys[key], value: values[value]))
        }
        return FetchResult(
            state: entries.isEmpty ? .emptyConfig : .update,
            entries: entries,
            templateVersion: versionNumber
        )
    }

    /// Calls `body` with each entry callers with `signature` receive, in serving order, as its key's place in
    /// `parameterKeys` and its value's in `servedValues`: an encoder that has both tables in its own form
    /// copies bytes, where `resolve` hands out strings.
    public func forEachServed(_ signature: MatchSignature, _ body: (_ key: Int, _ value: Int) -> Void) {
        slots.withUnsafeBufferPointer { slots in
            rules.withUnsafeBufferPointer { rules in
                for position in slots.indices {
                    let slot = slots[position]
                    var value = slot.defaultValue
                    for ruleIndex in Int(slot.ruleStart)..<Int(slot.ruleEnd)
                    where signature.contains(Int(rules[ruleIndex].bit)) {
                        value = rules[ruleIndex].value
                        break
                    }
                    if value >= 0 { body(position, Int(value)) }
                }
            }
        }
    }

    /// Every distinct value some caller may be served; `forEachServed` names them by place.
    public var servedValues: [String] { values }

    /// Every condition's outcome for this caller, in template order (for debugging tools).
    public func evaluateConditions(_ context: FetchContext) -> [(name: String, truth: ConditionTruth)] {
        var scratch = EvaluationScratch(context: context, seeds: seeds)
        return conditions.map { ($0.name, $0.node.evaluate(&scratch)) }
    }
}
