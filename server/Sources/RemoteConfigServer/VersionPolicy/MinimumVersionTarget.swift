import RemoteConfigCore
import RemoteConfigStore

/// Where a policy writes the minimum in a template: its parameter's default value, or its conditional value for
/// the policy's condition, wherever the parameter is (top level or a group).
struct MinimumVersionTarget {
    /// Why the template cannot take a raise; the check records it as `LIMITED`.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    let parameter: String
    let group: String?
    let condition: String?
    /// The value there now, when it is an explicit one.
    let value: String?

    /// The target of `settings` in `template`; `Problem` when the parameter is gone or not a STRING, or the
    /// condition is gone.
    init(_ settings: MinimumVersionPolicySettings, in template: RemoteConfigTemplate) throws {
        guard let found = template.allParameters.first(where: { $0.key == settings.parameter }) else {
            throw Problem(description: "parameter \(settings.parameter) is not in the published template")
        }
        guard found.parameter.valueType == .string else {
            throw Problem(
                description: "parameter \(settings.parameter) is \(found.parameter.valueType.rawValue), not STRING")
        }
        if let condition = settings.condition, !template.conditions.contains(where: { $0.name == condition }) {
            throw Problem(description: "condition \(condition) is not in the published template")
        }
        parameter = settings.parameter
        group = found.group
        condition = settings.condition
        value =
            (settings.condition.map { found.parameter.conditionalValues[$0] } ?? found.parameter.defaultValue)?
            .stringValue
    }

    /// Writes `version` there.
    func set(_ version: String, in template: inout RemoteConfigTemplate) {
        let write: (inout Parameter) -> Void = { parameter in
            if let condition {
                parameter.conditionalValues[condition] = .value(version)
            } else {
                parameter.defaultValue = .value(version)
            }
        }
        if let group, var copy = template.parameterGroups[group], var parameter = copy.parameters[self.parameter] {
            write(&parameter)
            copy.parameters[self.parameter] = parameter
            template.parameterGroups[group] = copy
        } else if var parameter = template.parameters[self.parameter] {
            write(&parameter)
            template.parameters[self.parameter] = parameter
        }
    }
}
