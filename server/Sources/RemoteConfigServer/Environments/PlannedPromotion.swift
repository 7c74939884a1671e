import RemoteConfigCore
import RemoteConfigStore

/// A promotion planned against the target as it was read: the three-way table, the result made ready to
/// publish, and the versions it was planned from.
struct PlannedPromotion {
    let plan: PromotionPlan
    let prepared: PreparedTemplate
    /// The target's published version the plan read (0: none).
    let targetVersion: Int64
    /// The source version the last promotion carried, the plan's base (nil: none).
    let baseVersion: Int64?

    /// Whether the promotion moves any parameter.
    var changes: Bool { plan.parameters.contains(where: \.promoted) }

    /// The answer's table: where from and to, the base, every parameter and condition, and the result.
    func table(from source: PromotedFrom, to target: String) -> JSONObject {
        var object: JSONObject = [
            "from": .object([
                "project": .string(source.project), "versionNumber": .string(String(source.versionNumber)),
            ]),
            "to": .object(["project": .string(target), "versionNumber": .string(String(targetVersion))]),
            "base": baseVersion.map { .object(["versionNumber": .string(String($0))]) } ?? .null,
        ]
        object["parameters"] = .array(
            plan.parameters.map { entry in
                .object([
                    "key": .string(entry.key), "status": .string(entry.status.rawValue),
                    "promoted": .bool(entry.promoted),
                    "source": entry.source.map { .object($0.jsonObject) } ?? .null,
                    "target": entry.target.map { .object($0.jsonObject) } ?? .null,
                    "base": entry.base.map { .object($0.jsonObject) } ?? .null,
                ])
            })
        object["conditions"] = .array(
            plan.conditions.map { condition in
                .object([
                    "name": .string(condition.name), "status": .string(condition.status.rawValue),
                    "sourceExpression": condition.sourceExpression.map(JSONValue.string) ?? .null,
                    "targetExpression": condition.targetExpression.map(JSONValue.string) ?? .null,
                ])
            })
        var template = prepared.template
        template.version = nil
        object["template"] = template.jsonValue
        return object
    }
}
