extension RemoteConfigTemplate {
    /// The template as JSON: known members in Firebase's order, then unknown members as read.
    ///
    /// `conditions`, `parameters` and `parameterGroups` are always present (possibly empty) so
    /// that readers need no special case; `version` only when set.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["conditions"] = .array(conditions.map { .object($0.jsonObject) })
        object["parameters"] = .object(Self.encode(parameters))
        var groups = JSONObject()
        for (name, group) in parameterGroups { groups[name] = .object(group.jsonObject) }
        object["parameterGroups"] = .object(groups)
        if let version { object["version"] = .object(version.jsonObject) }
        for member in extra where object[member.key] == nil { object[member.key] = member.value }
        return .object(object)
    }

    /// Compact UTF-8 JSON for responses and storage.
    public func jsonBytes() -> [UInt8] { jsonValue.jsonBytes() }

    static func encode(_ parameters: OrderedStringMap<Parameter>) -> JSONObject {
        var object = JSONObject()
        for (key, parameter) in parameters { object.appendUnchecked(key: key, value: .object(parameter.jsonObject)) }
        return object
    }
}

extension Condition {
    /// The condition as a JSON object: `name`, `expression`, `tagColor`, then unknown members.
    public var jsonObject: JSONObject {
        var object: JSONObject = ["name": .string(name), "expression": .string(expression)]
        if let tagColor { object["tagColor"] = .string(tagColor) }
        return object.merging(extra)
    }
}

extension Parameter {
    /// The parameter as a JSON object, with empty parts left out as Firebase does.
    public var jsonObject: JSONObject {
        var object = JSONObject()
        if let defaultValue { object["defaultValue"] = .object(defaultValue.json) }
        if !conditionalValues.isEmpty {
            var values = JSONObject()
            for (name, value) in conditionalValues { values.appendUnchecked(key: name, value: .object(value.json)) }
            object["conditionalValues"] = .object(values)
        }
        object["valueType"] = .string(valueType.rawValue)
        if let description { object["description"] = .string(description) }
        return object.merging(extra)
    }
}

extension ParameterGroup {
    /// The group as a JSON object.
    public var jsonObject: JSONObject {
        var object = JSONObject()
        if let description { object["description"] = .string(description) }
        object["parameters"] = .object(RemoteConfigTemplate.encode(parameters))
        return object.merging(extra)
    }
}

extension TemplateVersion {
    /// The version metadata as a JSON object, unset fields left out.
    public var jsonObject: JSONObject {
        var object = JSONObject()
        if let versionNumber { object["versionNumber"] = .string(versionNumber) }
        if let updateTime { object["updateTime"] = .string(updateTime) }
        if let updateUser {
            var user = JSONObject()
            if let email = updateUser.email { user["email"] = .string(email) }
            object["updateUser"] = .object(user.merging(updateUser.extra))
        }
        if let updateOrigin { object["updateOrigin"] = .string(updateOrigin) }
        if let updateType { object["updateType"] = .string(updateType) }
        if let description { object["description"] = .string(description) }
        if let rollbackSource { object["rollbackSource"] = .string(rollbackSource) }
        return object.merging(extra)
    }
}

extension JSONObject {
    /// Appends the other object's members whose keys are not already present.
    func merging(_ other: JSONObject) -> JSONObject {
        var result = self
        for member in other where result[member.key] == nil {
            result.appendUnchecked(key: member.key, value: member.value)
        }
        return result
    }
}

/// Lets a template travel through `Codable`; prefer `init(json:)`/`jsonBytes()`, which keep
/// member order on every platform.
extension RemoteConfigTemplate: Codable {
    /// Decodes through `JSONValue`; member order depends on the decoder.
    public init(from decoder: any Decoder) throws {
        try self.init(jsonValue: JSONValue(from: decoder))
    }

    /// Encodes the same members as `jsonBytes()`.
    public func encode(to encoder: any Encoder) throws {
        try jsonValue.encode(to: encoder)
    }
}
