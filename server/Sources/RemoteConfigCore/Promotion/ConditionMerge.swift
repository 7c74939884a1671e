/// The conditions of a promotion's result, their statuses and their conflicts.
///
/// - Each condition a promoted parameter names is carried from the source (name, expression, tag colour,
///   unknown members). When the target has that name with another expression and a parameter the result keeps
///   from the target uses it, that is a `CONDITION_CONFLICT`, unless `overwriteTargetChanges` lets the carried
///   expression win.
/// - Order: the carried conditions first, in the source's order, then the target's others in the target's
///   order; except that a target condition which a kept parameter tries before a carried one moves up just
///   before it. Without that exception a promotion would silently change which value a parameter it does not
///   touch serves. When the source's order and a kept parameter's order cannot both hold, that is a
///   `CONDITION_CONFLICT` naming the condition that would jump ahead (unless overwritten: then the plain order).
/// - Every condition no parameter of the result uses is dropped.
/// - A conditional value naming a condition its own template lacks is a `CONDITION_CONFLICT` that nothing
///   overrides, so a result never references a condition it lacks.
struct ConditionMerge {
    /// The result's conditions in order.
    private(set) var conditions: [Condition] = []
    /// The result's conditions in order, then the target's dropped ones, then undefined names.
    private(set) var statuses: [PromotedCondition] = []
    /// Condition conflicts, sorted by condition name within each kind.
    private(set) var conflicts: [PromotionConflict] = []

    init(
        source: ConditionLookup, target: ConditionLookup, result: RemoteConfigTemplate, promoted: Set<String>,
        overwrite: Bool
    ) {
        var promotedUsers: [String: [String]] = [:]
        var keptUsers: [String: [String]] = [:]
        var keptParameters: [(key: String, parameter: Parameter)] = []
        for (key, parameter, _) in result.allParameters {
            let isPromoted = promoted.contains(key)
            if !isPromoted { keptParameters.append((key, parameter)) }
            for name in parameter.conditionalValues.keys {
                if isPromoted {
                    promotedUsers[name, default: []].append(key)
                } else {
                    keptUsers[name, default: []].append(key)
                }
            }
        }

        let carried = source.conditions.filter { promotedUsers[$0.name] != nil }
        let carriedNames = Set(carried.map(\.name))
        var status: [String: PromotionConditionStatus] = [:]
        for condition in carried {
            guard let existing = target[condition.name] else {
                status[condition.name] = .carried
                continue
            }
            if existing.expression == condition.expression {
                status[condition.name] = .same
            } else if let users = keptUsers[condition.name], !overwrite {
                status[condition.name] = .conflict
                conflicts.append(
                    PromotionConflict(
                        key: condition.name, reason: .condition,
                        message:
                            "condition \"\(condition.name)\" is \"\(condition.expression)\" in the source and "
                            + "\"\(existing.expression)\" in the target, where \(Self.list(users)) kept from the "
                            + "target use it; promote them too, or set overwriteTargetChanges to carry the source's"))
            } else {
                status[condition.name] = .carried
            }
        }
        let kept = target.conditions.filter { !carriedNames.contains($0.name) && keptUsers[$0.name] != nil }

        let order = Self.order(
            carried: carried.map(\.name), kept: kept.map(\.name), keptParameters: keptParameters, source: source,
            target: target)
        for (jumping, before, users) in order.violations where !overwrite {
            status[jumping] = .conflict
            conflicts.append(
                PromotionConflict(
                    key: jumping, reason: .condition,
                    message:
                        "carrying condition \"\(jumping)\" in the source's order puts it before \"\(before)\", "
                        + "which \(Self.list(users)) kept from the target try first; promote them too, or set "
                        + "overwriteTargetChanges to take the source's order"))
        }

        // Names a conditional value uses that its own template does not define (the template is invalid).
        var undefined: [String: (source: String?, target: String?)] = [:]
        for (name, users) in promotedUsers.sorted(by: { $0.key < $1.key }) where source[name] == nil {
            undefined[name] = (nil, target[name]?.expression)
            conflicts.append(Self.undefinedConflict(name, users: users, side: "source"))
        }
        for (name, users) in keptUsers.sorted(by: { $0.key < $1.key })
        where !carriedNames.contains(name) && target[name] == nil {
            undefined[name] = (source[name]?.expression, nil)
            conflicts.append(Self.undefinedConflict(name, users: users, side: "target"))
        }

        for name in order.names {
            let isCarried = carriedNames.contains(name)
            let condition = isCarried ? source[name]! : target[name]!
            conditions.append(condition)
            statuses.append(
                PromotedCondition(
                    name: name, status: undefined[name] != nil ? .conflict : status[name] ?? .kept,
                    sourceExpression: source[name]?.expression, targetExpression: target[name]?.expression))
        }
        let used = Set(order.names)
        for condition in target.conditions where !used.contains(condition.name) {
            statuses.append(
                PromotedCondition(
                    name: condition.name, status: undefined[condition.name] != nil ? .conflict : .dropped,
                    sourceExpression: source[condition.name]?.expression, targetExpression: condition.expression))
        }
        for (name, expressions) in undefined.sorted(by: { $0.key < $1.key }) where target[name] == nil {
            statuses.append(
                PromotedCondition(
                    name: name, status: .conflict, sourceExpression: expressions.source,
                    targetExpression: expressions.target))
        }
    }

    /// The result's order, and when the source's order and the kept parameters' orders contradict each other,
    /// the kept parameters the plain order changes: (the condition that jumps ahead, the one it jumps, users).
    private static func order(
        carried: [String], kept: [String], keptParameters: [(key: String, parameter: Parameter)],
        source: ConditionLookup,
        target: ConditionLookup
    ) -> (names: [String], violations: [(String, String, [String])]) {
        let carriedSet = Set(carried)
        let present = carriedSet.union(kept)
        func rank(_ name: String) -> (Int, Int) {
            carriedSet.contains(name) ? (0, source.positions[name]!) : (1, target.positions[name]!)
        }
        // Each kept parameter's conditions in the target's precedence, restricted to the result's conditions.
        let keptOrders: [[String]] = keptParameters.map { _, parameter in
            parameter.conditionalValues.keys.filter { present.contains($0) && target.positions[$0] != nil }
                .sorted { target.positions[$0]! < target.positions[$1]! }
        }
        var predecessors: [String: Set<String>] = [:]
        for (earlier, later) in zip(carried, carried.dropFirst()) { predecessors[later, default: []].insert(earlier) }
        for names in keptOrders {
            for (earlier, later) in zip(names, names.dropFirst()) { predecessors[later, default: []].insert(earlier) }
        }

        // Depth first from each condition in the plain order, emitting its predecessors just before it, so a
        // condition moves only as far as some kept parameter needs.
        var state: [String: Bool] = [:]  // false: being visited, true: emitted
        var names: [String] = []
        var cyclic = false
        func visit(_ name: String) {
            if let done = state[name] {
                if !done { cyclic = true }
                return
            }
            state[name] = false
            for earlier in (predecessors[name] ?? []).sorted(by: { rank($0) < rank($1) }) { visit(earlier) }
            state[name] = true
            names.append(name)
        }
        for name in carried + kept { visit(name) }
        guard cyclic else { return (names, []) }

        let plain = carried + kept
        let position = Dictionary(uniqueKeysWithValues: plain.enumerated().map { ($1, $0) })
        var violations: [String: (before: String, users: [String])] = [:]
        for ((key, _), names) in zip(keptParameters, keptOrders) {
            guard
                case (let earlier, let later)? = zip(names, names.dropFirst()).first(where: {
                    position[$1]! < position[$0]!
                })
            else { continue }
            violations[later, default: (earlier, [])].users.append(key)
        }
        return (plain, violations.sorted { $0.key < $1.key }.map { ($0.key, $0.value.before, $0.value.users) })
    }

    private static func undefinedConflict(_ name: String, users: [String], side: String) -> PromotionConflict {
        PromotionConflict(
            key: name, reason: .condition,
            message: "\(list(users)) in the \(side) name condition \"\(name)\", which the \(side) does not define")
    }

    private static func list(_ keys: [String]) -> String {
        let quoted = keys.sorted().map { "\"\($0)\"" }
        return (quoted.count == 1 ? "parameter " : "parameters ") + quoted.joined(separator: ", ")
    }
}
