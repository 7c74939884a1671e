/// What a rollout does to a template: its own condition (`rollout_<id>`, first in the list, seeded by its own
/// name so an app instance in at one percentage stays in at every higher one) and the parameter's conditional
/// value for it. Everything else in the template is left as it is, so a step never undoes another change.
public struct RolloutTemplate: Sendable, Hashable {
    /// The parameter the rollout changes.
    public var parameter: String
    /// The value the rollout gives.
    public var value: String
    /// Who may get it, as a condition expression; nil for everyone.
    public var audience: String?
    /// The condition's name, also the percent seed: `rollout_<id>`.
    public var conditionName: String

    /// Creates the plan's template side.
    public init(parameter: String, value: String, audience: String?, conditionName: String) {
        self.parameter = parameter
        self.value = value
        self.audience = audience
        self.conditionName = conditionName
    }

    /// The condition name of rollout `id`.
    public static func conditionName(id: Int64) -> String { "rollout_\(id)" }

    /// The condition's expression at `percent`: `(<audience>) && percent('<name>') <= N`.
    public func expression(percent: Double) -> String {
        let share = "percent('\(conditionName)') <= \(Self.format(percent: percent))"
        guard let audience else { return share }
        return "(\(audience)) && \(share)"
    }

    /// `template` at `percent`: the rollout's condition first in the list with that share, and the parameter's
    /// conditional value for it. Nil when the template has no such parameter.
    public func applying(percent: Double, to template: RemoteConfigTemplate) -> RemoteConfigTemplate? {
        var result = template
        let existing = result.conditions.firstIndex { $0.name == conditionName }
        let condition = Condition(
            name: conditionName, expression: expression(percent: percent),
            tagColor: existing.map { result.conditions[$0].tagColor } ?? "GREEN")
        if let existing { result.conditions.remove(at: existing) }
        result.conditions.insert(condition, at: 0)
        let changed = Self.edit(parameter, in: &result) { $0.conditionalValues[conditionName] = .value(value) }
        return changed ? result : nil
    }

    /// `template` without the rollout: its condition removed, and every value for it (the parameter's, and any
    /// other parameter's that a template from before names were reserved may have), so every app gets what it
    /// had before the rollout and the template stays valid.
    public func removing(from template: RemoteConfigTemplate) -> RemoteConfigTemplate {
        Self.removing([conditionName], from: template)
    }

    /// `template` without the conditions `names`, and without every parameter's values for them.
    public static func removing(_ names: Set<String>, from template: RemoteConfigTemplate) -> RemoteConfigTemplate {
        var result = template
        result.conditions.removeAll { names.contains($0.name) }
        func strip(_ parameters: inout OrderedStringMap<Parameter>) {
            for (key, parameter) in parameters
            where parameter.conditionalValues.keys.contains(where: names.contains) {
                var kept = parameter
                for name in names { kept.conditionalValues[name] = nil }
                parameters[key] = kept
            }
        }
        strip(&result.parameters)
        for (name, group) in result.parameterGroups
        where group.parameters.contains(where: { $0.1.conditionalValues.keys.contains(where: names.contains) }) {
            var copy = group
            strip(&copy.parameters)
            result.parameterGroups[name] = copy
        }
        return result
    }

    /// `template` with the value as the parameter's default for everyone and the rollout removed. Nil when the
    /// template has no such parameter.
    public func completing(_ template: RemoteConfigTemplate) -> RemoteConfigTemplate? {
        var result = removing(from: template)
        let changed = Self.edit(parameter, in: &result) { $0.defaultValue = .value(value) }
        return changed ? result : nil
    }

    /// The parameter as `template` has it (top level or in a group), or nil.
    public func parameter(in template: RemoteConfigTemplate) -> Parameter? {
        if let found = template.parameters[parameter] { return found }
        for (_, group) in template.parameterGroups {
            if let found = group.parameters[parameter] { return found }
        }
        return nil
    }

    /// Whether going from `before` to `after` changed the rollout's parameter or its condition: what a publish
    /// by anyone but the rollout itself must not do without pausing it.
    public func isEdited(from before: RemoteConfigTemplate, to after: RemoteConfigTemplate) -> Bool {
        if parameter(in: before) != parameter(in: after) { return true }
        let condition = { (template: RemoteConfigTemplate) in template.conditions.first { $0.name == conditionName } }
        return condition(before) != condition(after)
    }

    /// A percentage as the condition language writes it: `1`, `0.5`, `12.345` (at most 6 decimals, the
    /// granularity of a bucket).
    public static func format(percent: Double) -> String {
        let micro = Int64((percent * 1_000_000).rounded())
        let whole = micro / 1_000_000
        var fraction = String(micro % 1_000_000)
        guard fraction != "0" else { return String(whole) }
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(whole).\(fraction)"
    }

    /// Whether `percent` is a share a step may take: above 0, at most 100, in steps of a millionth of a percent.
    public static func isValid(percent: Double) -> Bool {
        guard percent.isFinite, percent > 0, percent <= 100 else { return false }
        let micro = percent * 1_000_000
        return abs(micro - micro.rounded()) < 1e-6
    }

    /// Applies `change` to the parameter wherever it lives; false when there is none.
    private static func edit(
        _ key: String, in template: inout RemoteConfigTemplate, _ change: (inout Parameter) -> Void
    ) -> Bool {
        if var found = template.parameters[key] {
            change(&found)
            template.parameters[key] = found
            return true
        }
        for (name, group) in template.parameterGroups {
            guard var found = group.parameters[key] else { continue }
            var copy = group
            change(&found)
            copy.parameters[key] = found
            template.parameterGroups[name] = copy
            return true
        }
        return false
    }
}
