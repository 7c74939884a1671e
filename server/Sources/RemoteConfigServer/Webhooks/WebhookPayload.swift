import Foundation
import RemoteConfigCore
import RemoteConfigStore

/// Makes a delivery's body from the event's facts: the contract's JSON envelope, or a Slack message.
struct WebhookPayload: Sendable {
    let templates: TemplateStore
    /// The console's public address (`--public-url`), for links in Slack messages.
    let publicURL: String?

    /// The body of `delivery`, in its webhook's format.
    func body(for delivery: ClaimedDelivery) async throws -> String {
        let facts = (try? JSONValue(parsing: delivery.dataJSON).objectValue) ?? JSONObject()
        var data = facts
        var diff: TemplateDiff?
        if delivery.type == .templatePublished, let to = facts["versionNumber"]?.stringValue.flatMap({ Int64($0) }) {
            let from = facts["previousVersionNumber"]?.stringValue.flatMap { Int64($0) } ?? 0
            let before = try await template(delivery.webhook.project, from)
            let after = try await template(delivery.webhook.project, to)
            diff = TemplateDiff(from: before, to: after)
            data["diff"] = .object(TemplateHTTP.diff(from: String(from), to: String(to), before, after))
        }
        if delivery.webhook.format == "SLACK" {
            return JSONValue.object(
                SlackMessage(delivery: delivery, facts: facts, diff: diff, publicURL: publicURL).json
            ).jsonText
        }
        let actor: JSONObject = [
            "user": delivery.actorUser.map { .string("users/\($0)") } ?? .null,
            "email": delivery.actorEmail.map { .string($0) } ?? .null,
            "key": delivery.actorKey.map { .string("apiKeys/\($0)") } ?? .null,
            "displayName": .string(delivery.actorName),
        ]
        let envelope: JSONObject = [
            "id": .string(delivery.id), "type": .string(delivery.type.rawValue),
            "time": .string(JSONResponse.timestamp(delivery.createTime)),
            "project": .string(delivery.webhook.project), "actor": .object(actor), "data": .object(data),
        ]
        return JSONValue.object(envelope).jsonText
    }

    /// Version `number` of `project` (the empty template for 0: before the first publish).
    private func template(_ project: String, _ number: Int64) async throws -> RemoteConfigTemplate {
        guard number > 0, let stored = try await templates.version(project, number) else {
            return RemoteConfigTemplate()
        }
        return try RemoteConfigTemplate(json: Array(stored.templateJSON.utf8))
    }
}

extension JSONValue {
    /// The value as compact JSON text.
    var jsonText: String { String(decoding: jsonBytes(), as: UTF8.self) }
}
