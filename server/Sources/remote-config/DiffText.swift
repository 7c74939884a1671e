import RemoteConfigCore

/// A diff (`remoteConfig:diff`'s shape) as text for people: `+` added, `-` removed, `~` changed with each
/// changed field's value before and after.
enum DiffText {
    static func render(_ diff: JSONObject) -> String {
        var lines: [String] = []
        let parameters = diff["parameters"]
        let conditions = diff["conditions"]
        let parameterLines =
            section(parameters?["added"], "+", describe: parameterSummary)
            + section(parameters?["removed"], "-", describe: parameterSummary)
            + changed(parameters?["changed"], fields: parameterFields)
        let conditionLines =
            section(conditions?["added"], "+", describe: conditionSummary)
            + section(conditions?["removed"], "-", describe: conditionSummary)
            + changed(conditions?["changed"], fields: conditionFields)
            + (conditions?["orderChanged"]?.boolValue == true ? ["  ~ the evaluation order of conditions changed"] : [])
        if !parameterLines.isEmpty { lines += ["Parameters:"] + parameterLines }
        if !conditionLines.isEmpty { lines += ["Conditions:"] + conditionLines }
        return lines.isEmpty ? "No changes." : lines.joined(separator: "\n")
    }

    private static func section(_ list: JSONValue?, _ mark: String, describe: (JSONValue) -> String) -> [String] {
        (list?.arrayValue ?? []).map { item in
            let value = item["after"] ?? item["before"] ?? .null
            return "  \(mark) \(TerminalText.field(item.text("name"))): \(TerminalText.field(describe(value)))"
        }
    }

    private static func changed(_ list: JSONValue?, fields: (JSONValue, JSONValue, [String]) -> [String]) -> [String] {
        (list?.arrayValue ?? []).flatMap { item in
            let aspects = (item["changedFields"]?.arrayValue ?? []).compactMap(\.stringValue)
            return ["  ~ \(TerminalText.field(item.text("name")))"]
                + fields(item["before"] ?? .null, item["after"] ?? .null, aspects).map {
                    "      " + TerminalText.field($0)
                }
        }
    }

    /// `"20"`, `in-app default`, `(none)`, or compact JSON for anything else.
    static func value(_ value: JSONValue?) -> String {
        guard let value else { return "(none)" }
        if let text = value["value"]?.stringValue, value.objectValue?.count == 1 { return quoted(text) }
        if value["useInAppDefault"]?.boolValue == true { return "in-app default" }
        return value.jsonString
    }

    private static func quoted(_ text: String) -> String {
        JSONValue.string(text).jsonString
    }

    private static func parameterSummary(_ parameter: JSONValue) -> String {
        var parts = [(parameter["valueType"]?.stringValue ?? "STRING"), "default " + value(parameter["defaultValue"])]
        for member in parameter["conditionalValues"]?.objectValue ?? [:] {
            parts.append("if \(member.key) " + value(member.value))
        }
        if let group = parameter["parameterGroup"]?.stringValue { parts.append("group \(group)") }
        return parts.joined(separator: ", ")
    }

    private static func conditionSummary(_ condition: JSONValue) -> String {
        condition.text("expression")
    }

    private static func parameterFields(_ before: JSONValue, _ after: JSONValue, _ aspects: [String]) -> [String] {
        var lines: [String] = []
        for aspect in aspects {
            switch aspect {
            case "defaultValue":
                lines.append("defaultValue: \(value(before["defaultValue"])) → \(value(after["defaultValue"]))")
            case "conditionalValues":
                let old = before["conditionalValues"]?.objectValue ?? [:]
                let new = after["conditionalValues"]?.objectValue ?? [:]
                var names = old.keys
                for name in new.keys where !names.contains(name) { names.append(name) }
                for name in names where old[name] != new[name] {
                    lines.append("if \(name): \(value(old[name])) → \(value(new[name]))")
                }
            case "valueType":
                lines.append("valueType: \(before.text("valueType").orNone) → \(after.text("valueType").orNone)")
            case "description":
                lines.append(
                    "description: \(quotedOrNone(before["description"])) → \(quotedOrNone(after["description"]))")
            case "group":
                lines.append(
                    "group: \(before.text("parameterGroup").orNone) → \(after.text("parameterGroup").orNone)")
            default:
                lines.append(
                    "other fields: \(rest(before, known: knownParameterFields)) → \(rest(after, known: knownParameterFields))"
                )
            }
        }
        return lines
    }

    private static func conditionFields(_ before: JSONValue, _ after: JSONValue, _ aspects: [String]) -> [String] {
        aspects.map { aspect in
            switch aspect {
            case "expression": return "expression: \(before.text("expression")) → \(after.text("expression"))"
            case "tagColor": return "tagColor: \(before.text("tagColor").orNone) → \(after.text("tagColor").orNone)"
            case "position": return "moved in the evaluation order"
            default:
                return
                    "other fields: \(rest(before, known: knownConditionFields)) → \(rest(after, known: knownConditionFields))"
            }
        }
    }

    private static let knownParameterFields: Swift.Set<String> = [
        "defaultValue", "conditionalValues", "valueType", "description", "parameterGroup",
    ]
    private static let knownConditionFields: Swift.Set<String> = ["name", "expression", "tagColor"]

    private static func rest(_ value: JSONValue, known: Swift.Set<String>) -> String {
        let members = (value.objectValue ?? [:]).members.filter { !known.contains($0.key) }
        return members.isEmpty ? "(none)" : JSONValue.object(JSONObject(members)).jsonString
    }

    private static func quotedOrNone(_ value: JSONValue?) -> String {
        value?.stringValue.map(quoted) ?? "(none)"
    }
}

extension String {
    /// The text, or `(none)` when empty.
    fileprivate var orNone: String { isEmpty ? "(none)" : self }
}
