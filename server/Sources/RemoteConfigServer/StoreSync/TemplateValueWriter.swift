import RemoteConfigCore

/// Puts a store's value into a parameter of a template: the one place every kind of store link (App Store,
/// Google Play) changes a template.
enum TemplateValueWriter {
    /// Sets `key`'s default value, or with `condition` its value under that condition, to `value`; true when that
    /// changed anything. Other values are people's and stay as they are. Throws when the parameter is gone, is
    /// not of one of `types`, or the condition is gone.
    static func set(
        _ key: String, to value: String, condition: String?, types: [ValueType],
        in template: inout RemoteConfigTemplate
    ) throws(StoreSyncProblem) -> Bool {
        if let condition, !template.conditions.contains(where: { $0.name == condition }) {
            throw StoreSyncProblem(description: "condition \(condition) is no longer in the published template")
        }
        func update(_ parameter: inout Parameter) throws(StoreSyncProblem) -> Bool {
            guard types.contains(parameter.valueType) else {
                let wanted = types.map(\.rawValue).joined(separator: " or ")
                throw StoreSyncProblem(
                    description: "parameter \(key) is \(parameter.valueType.rawValue) now, not \(wanted)")
            }
            if let condition {
                guard parameter.conditionalValues[condition] != .value(value) else { return false }
                parameter.conditionalValues[condition] = .value(value)
            } else {
                guard parameter.defaultValue != .value(value) else { return false }
                parameter.defaultValue = .value(value)
            }
            return true
        }
        if var parameter = template.parameters[key] {
            guard try update(&parameter) else { return false }
            template.parameters[key] = parameter
            return true
        }
        for (name, group) in template.parameterGroups {
            guard var parameter = group.parameters[key] else { continue }
            guard try update(&parameter) else { return false }
            var copy = group
            copy.parameters[key] = parameter
            template.parameterGroups[name] = copy
            return true
        }
        throw StoreSyncProblem(description: "parameter \(key) is no longer in the published template")
    }
}
