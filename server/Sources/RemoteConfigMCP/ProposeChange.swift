import Foundation
import MCP
import RemoteConfigCore

/// `propose_change`: the one tool that changes something, and only by opening a change request, which a
/// person then approves and publishes. A fixed sequence of admin calls: (read the published template and apply
/// the edits,) create the change request, read it back with its diff, and ask for its impact.
enum ProposeChange {
    static let tool = AssistantTool(
        name: "propose_change", title: "Propose a change",
        description:
            "Opens a change request (POST /v1/projects/{p}/remoteConfig/changeRequests; the editor role, as on the "
            + "API) with either a whole template or edits applied to the published template, such as "
            + "{\"set\": {\"parameter\": \"min_supported_version\", \"value\": \"2.3.0\"}}, and answers the change "
            + "request with its diff against the published template and its impact on the fleet. It never "
            + "publishes, approves or schedules: a person approves and publishes the change request in the console, "
            + "the CLI or the API.",
        properties: [
            .project,
            .string("description", "What the change is and why, for the people who review it.", required: true),
            .object("template", "A whole template to propose (instead of edits)."),
            ToolProperty(
                "edits",
                [
                    "type": "array", "minItems": 1, "maxItems": 100,
                    "description": .string(
                        "Edits to the published template, in order. {\"set\": {\"parameter\", \"value\", \"condition\"?, "
                            + "\"valueType\"?}} sets the default value (or the value for a condition; valueType creates a "
                            + "parameter that does not exist yet: STRING, BOOLEAN, NUMBER, JSON); {\"remove\": "
                            + "{\"parameter\", \"condition\"?}} removes a parameter (or its value for a condition)."),
                    "items": ["type": "object"],
                ]),
        ],
        readOnly: false,
        action: .sequence(run))

    /// `changeRequests/<id>` or `<id>` as the id alone.
    static func changeRequestID(_ text: String) -> String {
        text.hasPrefix("changeRequests/") ? String(text.dropFirst("changeRequests/".count)) : text
    }

    private static func run(_ arguments: ToolArguments, _ caller: any AdminCaller) async throws -> CallTool.Result {
        let base = try arguments.projectPath("/remoteConfig")
        let description = try arguments.requiredString("description")
        let whole = try arguments.object("template")
        let edits = try arguments.array("edits")
        guard (whole == nil) != (edits == nil) else {
            throw ToolInputError(
                field: whole == nil ? "edits" : "template", reason: whole == nil ? "REQUIRED" : "CONFLICT",
                message: "give either a whole template or edits, not both")
        }
        let template: JSONValue
        if let whole {
            template = try JSONValue(parsing: Value.object(whole).jsonBytes)
        } else {
            let planned = try TemplateEdit.parse(edits ?? [])
            let published = try await caller.send(AdminCall("GET", base))
            guard published.succeeded else { return ToolResult.of(published) }
            guard var object = try JSONValue(parsing: published.body).objectValue else {
                return ToolResult.of(AdminAnswer(status: 502, body: []))
            }
            // The published version's own record (number, author, time) is not part of what is proposed.
            object["version"] = nil
            for (index, edit) in planned.enumerated() { try edit.apply(to: &object, field: "edits[\(index)]") }
            template = .object(object)
        }
        // No publishTime: in a project that requires no approval it would be published then without a person.
        let body: JSONObject = ["description": .string(description), "template": template]
        let created = try await caller.send(
            AdminCall("POST", base + "/changeRequests", body: JSONValue.object(body).jsonBytes()))
        guard created.succeeded, case .object(let request)? = Value(jsonBytes: created.body),
            case .string(let name)? = request["name"]
        else { return ToolResult.of(created) }
        let id = changeRequestID(name)
        // Read back: the change request with its diff against the published template.
        let read = try await caller.send(AdminCall("GET", base + "/changeRequests/" + AdminCall.segment(id)))
        let impact = try await caller.send(
            AdminCall("POST", base + ":impact", body: Value.object(["changeRequest": .string(id)]).jsonBytes))
        let refusal = Value.string(ToolResult.refusal(impact.status, Value(jsonBytes: impact.body)))
        return ToolResult.combined([
            ("changeRequest", read.succeeded ? read.body : created.body),
            impact.succeeded ? ("impact", impact.body) : ("impactError", refusal.jsonBytes),
        ])
    }
}

/// One edit of `propose_change`, applied to a template's JSON in place (key order kept).
struct TemplateEdit {
    enum Kind {
        case set(value: String, valueType: String?)
        case remove
    }

    let kind: Kind
    let parameter: String
    let condition: String?

    /// The edits of `items`, each checked before anything is called.
    static func parse(_ items: [Value]) throws(ToolInputError) -> [TemplateEdit] {
        guard !items.isEmpty, items.count <= 100 else {
            throw ToolInputError(field: "edits", reason: "OUT_OF_RANGE", message: "edits takes 1 to 100 edits")
        }
        var edits: [TemplateEdit] = []
        for (index, item) in items.enumerated() {
            let field = "edits[\(index)]"
            guard case .object(let object) = item, object.count == 1, let (verb, detail) = object.first,
                ["set", "remove"].contains(verb), case .object(let fields) = detail
            else {
                throw ToolInputError(
                    field: field, reason: "INVALID_EDIT",
                    message: "\(field) must be {\"set\": {…}} or {\"remove\": {…}}")
            }
            let allowed: Set<String> =
                verb == "set" ? ["parameter", "value", "condition", "valueType"] : ["parameter", "condition"]
            if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw ToolInputError(
                    field: "\(field).\(verb).\(unknown)", reason: "UNKNOWN_FIELD",
                    message:
                        "\(unknown) is not a field of \(verb); it takes \(allowed.sorted().joined(separator: ", "))")
            }
            func text(_ name: String, required: Bool) throws(ToolInputError) -> String? {
                switch fields[name] {
                case nil, .null?:
                    guard !required else {
                        throw ToolInputError(
                            field: "\(field).\(verb).\(name)", reason: "REQUIRED", message: "\(name) is required")
                    }
                    return nil
                case .string(let value)?: return value
                case .int(let value)? where name == "value": return String(value)
                case .double(let value)? where name == "value": return String(value)
                case .bool(let value)? where name == "value": return value ? "true" : "false"
                default:
                    throw ToolInputError(
                        field: "\(field).\(verb).\(name)", reason: "WRONG_TYPE", message: "\(name) must be a string")
                }
            }
            let parameter = try text("parameter", required: true) ?? ""
            let condition = try text("condition", required: false)
            if verb == "set" {
                let value = try text("value", required: true) ?? ""
                edits.append(
                    TemplateEdit(
                        kind: .set(value: value, valueType: try text("valueType", required: false)),
                        parameter: parameter, condition: condition))
            } else {
                edits.append(TemplateEdit(kind: .remove, parameter: parameter, condition: condition))
            }
        }
        return edits
    }

    /// Applies the edit to `template`; an edit of a parameter or value that is not there is refused at `field`.
    func apply(to template: inout JSONObject, field: String) throws(ToolInputError) {
        let place = Self.place(of: parameter, in: template)
        var parameterObject: JSONObject
        if let place {
            parameterObject = place.read(template)
        } else if case .set(_, let valueType?) = kind {
            parameterObject = ["valueType": .string(valueType)]
        } else {
            throw ToolInputError(
                field: "\(field).parameter", reason: "NOT_FOUND",
                message:
                    "the template has no parameter \(parameter)"
                    + (isSet ? "; give valueType to create it" : ""))
        }
        switch kind {
        case .set(let value, _):
            let entry: JSONValue = .object(["value": .string(value)])
            if let condition {
                var values = parameterObject["conditionalValues"]?.objectValue ?? JSONObject()
                values[condition] = entry
                parameterObject["conditionalValues"] = .object(values)
            } else {
                parameterObject["defaultValue"] = entry
            }
        case .remove:
            guard let condition else {
                place?.write(&template, nil)
                return
            }
            guard var values = parameterObject["conditionalValues"]?.objectValue, values[condition] != nil else {
                throw ToolInputError(
                    field: "\(field).condition", reason: "NOT_FOUND",
                    message: "parameter \(parameter) has no value for condition \(condition)")
            }
            values[condition] = nil
            parameterObject["conditionalValues"] = values.isEmpty ? nil : .object(values)
        }
        if let place {
            place.write(&template, parameterObject)
        } else {
            var parameters = template["parameters"]?.objectValue ?? JSONObject()
            parameters[parameter] = .object(parameterObject)
            template["parameters"] = .object(parameters)
        }
    }

    private var isSet: Bool {
        if case .set = kind { return true }
        return false
    }

    /// Where a parameter sits: the template's `parameters`, or a parameter group's.
    struct Place {
        let group: String?
        let name: String

        func read(_ template: JSONObject) -> JSONObject {
            let parameters =
                group.flatMap { template["parameterGroups"]?[$0]?["parameters"] } ?? template["parameters"]
            return parameters?[name]?.objectValue ?? JSONObject()
        }

        /// Replaces (nil: removes) the parameter.
        func write(_ template: inout JSONObject, _ value: JSONObject?) {
            guard let group else {
                var parameters = template["parameters"]?.objectValue ?? JSONObject()
                parameters[name] = value.map { .object($0) }
                template["parameters"] = .object(parameters)
                return
            }
            var groups = template["parameterGroups"]?.objectValue ?? JSONObject()
            var groupObject = groups[group]?.objectValue ?? JSONObject()
            var parameters = groupObject["parameters"]?.objectValue ?? JSONObject()
            parameters[name] = value.map { .object($0) }
            groupObject["parameters"] = .object(parameters)
            groups[group] = .object(groupObject)
            template["parameterGroups"] = .object(groups)
        }
    }

    static func place(of parameter: String, in template: JSONObject) -> Place? {
        if template["parameters"]?[parameter] != nil { return Place(group: nil, name: parameter) }
        for member in template["parameterGroups"]?.objectValue ?? JSONObject()
        where member.value["parameters"]?[parameter] != nil {
            return Place(group: member.key, name: parameter)
        }
        return nil
    }
}
