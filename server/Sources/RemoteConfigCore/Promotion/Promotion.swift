/// The three-way merge that promotes a template from one project (staging) into another (production).
///
/// A pure function of the source version, the target template and the base (the source version last promoted
/// into the target), so the server can run it inside the target's publish transaction.
public enum Promotion {
    /// Plans the promotion of `source` into `target` since `base`, and builds the result when nothing conflicts.
    ///
    /// 1. The keys considered are `request.parameters` when given, else every key of source, target and base
    ///    (top-level or in a group). Keys in `request.localParameters` are `LOCAL`: the target's copy is kept.
    /// 2. Parameters are compared with `sameParameter` (conditions by expression, in precedence order).
    /// 3. Source equal to target: `UNCHANGED`. Otherwise, with a base: target equal to base: `SOURCE_CHANGED`
    ///    (promoted); source equal to base: `TARGET_CHANGED` (kept, promoted only when named explicitly or with
    ///    `overwriteTargetChanges`); else `BOTH_CHANGED` (a `PROMOTION_CONFLICT` unless named explicitly or
    ///    overwritten, then promoted). Without a base every difference is `SOURCE_CHANGED`.
    /// 4. A promoted key gets the source's parameter exactly, where the source has it (its group is created
    ///    with the source group's description when the target lacks it; the key leaves any other place it had
    ///    in the target); a promoted key the source lacks is removed. A group the promotion empties is removed
    ///    unless the source has it.
    /// 5. Conditions a promoted parameter names are carried from the source; a carried expression that differs
    ///    from the target's where a kept parameter uses it is a `CONDITION_CONFLICT` (unless overwritten). Order:
    ///    carried ones first in the source's order, then the target's others in the target's order, except that
    ///    a target condition a kept parameter tries before a carried one moves up just before it (a contradiction
    ///    is a `CONDITION_CONFLICT`). Unused conditions are dropped. See `ConditionMerge`.
    /// 6. Everything else is the target's; `version` is nil. The result references only conditions it has.
    public static func plan(
        source: RemoteConfigTemplate, target: RemoteConfigTemplate, base: RemoteConfigTemplate?,
        request: PromotionRequest
    ) -> PromotionPlan {
        let sourceSide = Side(source)
        let targetSide = Side(target)
        let baseSide = base.map(Side.init)

        var entries: [PromotedParameter] = []
        var conflicts: [PromotionConflict] = []
        for key in consideredKeys(sourceSide, targetSide, baseSide, request).sorted() {
            let entry = classify(key, sourceSide, targetSide, baseSide, request)
            entries.append(entry)
            if entry.status == .bothChanged && !entry.promoted {
                conflicts.append(
                    PromotionConflict(
                        key: key, reason: .parameter,
                        message:
                            "parameter \"\(key)\" was changed in both projects since the last promotion; name it in "
                            + "parameters or set overwriteTargetChanges to take the source's"))
            }
        }

        let promoted = Set(entries.lazy.filter(\.promoted).map(\.key))
        var result = placeParameters(promoted, from: source, into: target)
        let merge = ConditionMerge(
            source: sourceSide.lookup, target: targetSide.lookup, result: result, promoted: promoted,
            overwrite: request.overwriteTargetChanges)
        conflicts += merge.conflicts
        result.conditions = merge.conditions
        result.version = nil
        return PromotionPlan(
            parameters: entries, conditions: merge.statuses, conflicts: conflicts,
            result: conflicts.isEmpty ? result : nil)
    }

    /// One template read for the merge: its parameters by key and its conditions by name.
    private struct Side {
        let template: RemoteConfigTemplate
        let lookup: ConditionLookup
        /// Each key's first occurrence (a repeated key is only in an invalid template).
        let parameters: [String: Parameter]
        let keys: [String]

        init(_ template: RemoteConfigTemplate) {
            self.template = template
            lookup = ConditionLookup(template)
            var parameters: [String: Parameter] = [:]
            var keys: [String] = []
            for (key, parameter, _) in template.allParameters where parameters[key] == nil {
                parameters[key] = parameter
                keys.append(key)
            }
            self.parameters = parameters
            self.keys = keys
        }
    }

    private static func consideredKeys(_ source: Side, _ target: Side, _ base: Side?, _ request: PromotionRequest)
        -> Set<String>
    {
        if let named = request.parameters { return Set(named) }
        return Set(source.keys).union(target.keys).union(base?.keys ?? [])
    }

    private static func classify(
        _ key: String, _ source: Side, _ target: Side, _ base: Side?, _ request: PromotionRequest
    ) -> PromotedParameter {
        let inSource = source.parameters[key]
        let inTarget = target.parameters[key]
        let inBase = base?.parameters[key]
        func entry(_ status: PromotionStatus, promoted: Bool) -> PromotedParameter {
            PromotedParameter(
                key: key, status: status, promoted: promoted, source: inSource, target: inTarget, base: inBase)
        }
        if request.localParameters.contains(key) { return entry(.local, promoted: false) }
        if sameParameter(inSource, source.lookup, inTarget, target.lookup) { return entry(.unchanged, promoted: false) }
        guard let base else { return entry(.sourceChanged, promoted: true) }
        let asked = request.names(key) || request.overwriteTargetChanges
        if sameParameter(inTarget, target.lookup, inBase, base.lookup) { return entry(.sourceChanged, promoted: true) }
        if sameParameter(inSource, source.lookup, inBase, base.lookup) { return entry(.targetChanged, promoted: asked) }
        return entry(.bothChanged, promoted: asked)
    }

    /// The target with every promoted key set to the source's parameter, in the source's place, or removed.
    private static func placeParameters(
        _ promoted: Set<String>, from source: RemoteConfigTemplate, into target: RemoteConfigTemplate
    ) -> RemoteConfigTemplate {
        var result = target
        var placed: Set<String> = []
        // In the source's order, so keys new to the target are appended as the source orders them.
        for (key, parameter, group) in source.allParameters where promoted.contains(key) && !placed.contains(key) {
            placed.insert(key)
            remove(key, from: &result, except: group)
            if let group {
                if result.parameterGroups[group] == nil {
                    let sourceGroup = source.parameterGroups[group]
                    result.parameterGroups[group] = ParameterGroup(
                        description: sourceGroup?.description, extra: sourceGroup?.extra ?? [:])
                }
                result.parameterGroups[group]?.parameters[key] = parameter
            } else {
                result.parameters[key] = parameter
            }
        }
        for key in promoted.subtracting(placed) {
            remove(key, from: &result, except: nil)
            result.parameters[key] = nil
        }
        // A group the promotion emptied was the source's to remove (its keys moved or went), unless the source
        // still has it.
        for (name, group) in target.parameterGroups
        where !group.parameters.isEmpty && result.parameterGroups[name]?.parameters.isEmpty == true
            && source.parameterGroups[name] == nil
        {
            result.parameterGroups[name] = nil
        }
        return result
    }

    /// Removes `key` from the top level and every group but `kept` (nil keeps the top level).
    private static func remove(_ key: String, from template: inout RemoteConfigTemplate, except kept: String?) {
        if kept != nil { template.parameters[key] = nil }
        for name in template.parameterGroups.keys
        where name != kept && template.parameterGroups[name]?.parameters[key] != nil {
            template.parameterGroups[name]?.parameters[key] = nil
        }
    }
}
