extension RemoteConfigTemplate {
    /// Decodes a template from UTF-8 JSON bytes, keeping member order and unknown members.
    public init(json bytes: some Collection<UInt8>) throws(TemplateDecodingError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            throw TemplateDecodingError(field: "", message: error.message, byteOffset: error.offset)
        }
        try self.init(jsonValue: value)
    }

    /// Decodes a template from a parsed JSON value.
    public init(jsonValue: JSONValue) throws(TemplateDecodingError) {
        var object = try TemplateReader.object(jsonValue, at: "")
        let conditions = try TemplateReader.conditions(object.take("conditions"))
        let parameters = try TemplateReader.parameters(object.take("parameters"), at: "parameters")
        var groups = OrderedStringMap<ParameterGroup>()
        if let groupsValue = object.take("parameterGroups"), groupsValue != .null {
            for member in try TemplateReader.object(groupsValue, at: "parameterGroups") {
                groups[member.key] = try TemplateReader.group(member.value, at: "parameterGroups.\(member.key)")
            }
        }
        var version: TemplateVersion?
        if let versionValue = object.take("version"), versionValue != .null {
            version = try TemplateReader.version(versionValue)
        }
        self.init(
            conditions: conditions,
            parameters: parameters,
            parameterGroups: groups,
            version: version,
            extra: object
        )
    }
}

extension JSONObject {
    /// Removes and returns a member, so that what is left over is the unknown members.
    fileprivate mutating func take(_ key: String) -> JSONValue? {
        let value = self[key]
        if value != nil { self[key] = nil }
        return value
    }
}

private enum TemplateReader {
    static func object(_ value: JSONValue, at field: String) throws(TemplateDecodingError) -> JSONObject {
        guard case .object(let object) = value else {
            throw TemplateDecodingError(field: field, message: "expected an object, found \(value.typeName)")
        }
        return object
    }

    static func optionalString(_ value: JSONValue?, at field: String) throws(TemplateDecodingError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?:
            throw TemplateDecodingError(field: field, message: "expected a string, found \(other.typeName)")
        }
    }

    static func requiredString(_ value: JSONValue?, at field: String) throws(TemplateDecodingError) -> String {
        guard let text = try optionalString(value, at: field) else {
            throw TemplateDecodingError(field: field, message: "is required")
        }
        return text
    }

    static func conditions(_ value: JSONValue?) throws(TemplateDecodingError) -> [Condition] {
        guard let value, value != .null else { return [] }
        guard case .array(let elements) = value else {
            throw TemplateDecodingError(field: "conditions", message: "expected an array, found \(value.typeName)")
        }
        var result: [Condition] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let field = "conditions[\(index)]"
            var object = try object(element, at: field)
            let name = try requiredString(object.take("name"), at: "\(field).name")
            let expression = try requiredString(object.take("expression"), at: "\(field).expression")
            let tagColor = try optionalString(object.take("tagColor"), at: "\(field).tagColor")
            result.append(Condition(name: name, expression: expression, tagColor: tagColor, extra: object))
        }
        return result
    }

    static func parameters(
        _ value: JSONValue?,
        at field: String
    ) throws(TemplateDecodingError) -> OrderedStringMap<Parameter> {
        var result = OrderedStringMap<Parameter>()
        guard let value, value != .null else { return result }
        for member in try object(value, at: field) {
            result[member.key] = try parameter(member.value, at: "\(field).\(member.key)")
        }
        return result
    }

    static func parameter(_ value: JSONValue, at field: String) throws(TemplateDecodingError) -> Parameter {
        var object = try object(value, at: field)
        var defaultValue: ParameterValue?
        if let raw = object.take("defaultValue"), raw != .null {
            defaultValue = ParameterValue(json: try self.object(raw, at: "\(field).defaultValue"))
        }
        var conditionalValues = OrderedStringMap<ParameterValue>()
        if let raw = object.take("conditionalValues"), raw != .null {
            for member in try self.object(raw, at: "\(field).conditionalValues") {
                let memberField = "\(field).conditionalValues.\(member.key)"
                conditionalValues[member.key] = ParameterValue(json: try self.object(member.value, at: memberField))
            }
        }
        var valueType = ValueType.string
        if let name = try optionalString(object.take("valueType"), at: "\(field).valueType") {
            guard let known = ValueType(firebaseName: name) else {
                throw TemplateDecodingError(
                    field: "\(field).valueType",
                    message: "must be STRING, BOOLEAN, NUMBER or JSON, not \"\(name)\""
                )
            }
            valueType = known
        }
        let description = try optionalString(object.take("description"), at: "\(field).description")
        return Parameter(
            defaultValue: defaultValue,
            conditionalValues: conditionalValues,
            valueType: valueType,
            description: description,
            extra: object
        )
    }

    static func group(_ value: JSONValue, at field: String) throws(TemplateDecodingError) -> ParameterGroup {
        var object = try object(value, at: field)
        let description = try optionalString(object.take("description"), at: "\(field).description")
        let parameters = try parameters(object.take("parameters"), at: "\(field).parameters")
        return ParameterGroup(description: description, parameters: parameters, extra: object)
    }

    /// Version fields are text; a number is accepted for `versionNumber`/`rollbackSource`
    /// because hand-written JSON often has `"versionNumber": 5`.
    static func versionText(_ value: JSONValue?, at field: String) throws(TemplateDecodingError) -> String? {
        if case .number(let text)? = value { return text }
        return try optionalString(value, at: field)
    }

    static func version(_ value: JSONValue) throws(TemplateDecodingError) -> TemplateVersion {
        var object = try object(value, at: "version")
        var user: TemplateVersion.User?
        if let raw = object.take("updateUser"), raw != .null {
            var userObject = try self.object(raw, at: "version.updateUser")
            let email = try optionalString(userObject.take("email"), at: "version.updateUser.email")
            user = TemplateVersion.User(email: email, extra: userObject)
        }
        return TemplateVersion(
            versionNumber: try versionText(object.take("versionNumber"), at: "version.versionNumber"),
            updateTime: try optionalString(object.take("updateTime"), at: "version.updateTime"),
            updateUser: user,
            updateOrigin: try optionalString(object.take("updateOrigin"), at: "version.updateOrigin"),
            updateType: try optionalString(object.take("updateType"), at: "version.updateType"),
            description: try optionalString(object.take("description"), at: "version.description"),
            rollbackSource: try versionText(object.take("rollbackSource"), at: "version.rollbackSource"),
            extra: object
        )
    }
}
