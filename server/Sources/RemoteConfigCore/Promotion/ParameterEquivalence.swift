/// A template's conditions by name, as its conditional values read them.
struct ConditionLookup: Sendable {
    /// The conditions, a repeated name (only in an invalid template) counted once by its first occurrence.
    let conditions: [Condition]
    /// Each name's position in `conditions`: the precedence of its conditional values.
    let positions: [String: Int]

    init(_ template: RemoteConfigTemplate) {
        var conditions: [Condition] = []
        var positions: [String: Int] = [:]
        for condition in template.conditions where positions[condition.name] == nil {
            positions[condition.name] = conditions.count
            conditions.append(condition)
        }
        self.conditions = conditions
        self.positions = positions
    }

    subscript(name: String) -> Condition? {
        positions[name].map { conditions[$0] }
    }
}

extension Promotion {
    /// Whether two parameters, each read in its own template, are the same parameter: the one equality every
    /// status of a promotion (and a drift report) compares with.
    ///
    /// Absent equals absent. Otherwise value type, default value, description, unknown members and the
    /// conditional values must be equal, a conditional value standing for its condition's expression in its
    /// own template (its name when that template lacks the condition), taken in precedence order: the order of
    /// the template's conditions, which is what decides the served value. The order of the `conditionalValues`
    /// object decides nothing and is not compared, as in `TemplateDiff`.
    public static func sameParameter(
        _ first: Parameter?, in firstTemplate: RemoteConfigTemplate, _ second: Parameter?,
        in secondTemplate: RemoteConfigTemplate
    ) -> Bool {
        sameParameter(first, ConditionLookup(firstTemplate), second, ConditionLookup(secondTemplate))
    }

    static func sameParameter(
        _ first: Parameter?, _ firstLookup: ConditionLookup, _ second: Parameter?, _ secondLookup: ConditionLookup
    ) -> Bool {
        guard let first, let second else { return first == nil && second == nil }
        return first.valueType == second.valueType && first.defaultValue == second.defaultValue
            && first.description == second.description && first.extra == second.extra
            && first.conditionalValues.count == second.conditionalValues.count
            && servedOrder(first, firstLookup) == servedOrder(second, secondLookup)
    }

    /// What a conditional value stands for once its condition's name is set aside.
    private enum ConditionMeaning: Hashable {
        case expression(String)
        case undefined(name: String)
    }

    private struct ServedValue: Hashable {
        let meaning: ConditionMeaning
        let value: ParameterValue
    }

    private static func servedOrder(_ parameter: Parameter, _ lookup: ConditionLookup) -> [ServedValue] {
        let ranked = parameter.conditionalValues.map { name, value in
            (position: lookup.positions[name] ?? Int.max, name: name, value: value)
        }
        // Undefined names have no precedence; sorting them by name makes the comparison ignore their order.
        return ranked.sorted { ($0.position, $0.name) < ($1.position, $1.name) }.map { entry in
            let meaning: ConditionMeaning =
                lookup[entry.name].map { .expression($0.expression) } ?? .undefined(name: entry.name)
            return ServedValue(meaning: meaning, value: entry.value)
        }
    }
}
