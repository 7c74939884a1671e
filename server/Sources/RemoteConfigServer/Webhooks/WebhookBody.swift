import Foundation
import RemoteConfigCore
import RemoteConfigStore

/// The fields of a webhook people send (create and `PATCH`), checked one by one, naming the field at fault.
struct WebhookBody {
    /// Events a webhook may subscribe to; `*` for all.
    static let events: Set<String> = [
        "template.published", "changeRequest.opened", "changeRequest.approved", "changeRequest.rejected",
        "changeRequest.cancelled", "rollout.started", "rollout.halted", "rollout.completed", "storeSync.failed",
        "ping", "*",
    ]
    static let formats: Set<String> = ["JSON", "SLACK"]
    static let known: Set<String> = ["url", "events", "format", "description", "enabled"]

    var update = WebhookUpdate()

    init(_ body: JSONBody, allowPrivate: Bool, creating: Bool) throws {
        for key in body.object.keys where !Self.known.contains(key) || (creating && key == "enabled") {
            throw APIError.invalidField(
                key, reason: "UNKNOWN_FIELD",
                "\(key) is not a webhook field; send url, events, format, description"
                    + (creating ? "" : ", enabled"))
        }
        if let url = try body.string("url") {
            if let problem = WebhookDestination.problem(url: url, allowPrivate: allowPrivate) {
                throw APIError.invalidField("url", reason: "INVALID_URL", problem)
            }
            update.url = url
        } else if creating {
            throw APIError.invalidField("url", reason: "REQUIRED", "url is required")
        }
        switch body.object["events"] {
        case nil, .null?:
            if creating { throw APIError.invalidField("events", reason: "REQUIRED", "events is required") }
        case .array(let values)?:
            var events: [String] = []
            for (index, value) in values.enumerated() {
                guard case .string(let event) = value, Self.events.contains(event) else {
                    throw APIError.invalidField(
                        "events[\(index)]", reason: "UNKNOWN_EVENT",
                        "events[\(index)] is not an event; events are "
                            + Self.events.sorted().joined(separator: ", "))
                }
                if !events.contains(event) { events.append(event) }
            }
            guard !events.isEmpty else {
                throw APIError.invalidField("events", reason: "REQUIRED", "events must name at least one event")
            }
            update.events = events
        default:
            throw APIError.invalidField("events", reason: "NOT_AN_ARRAY", "events must be an array of event names")
        }
        if let format = try body.string("format") {
            guard Self.formats.contains(format) else {
                throw APIError.invalidField("format", reason: "INVALID_FORMAT", "format must be JSON or SLACK")
            }
            update.format = format
        }
        if let description = try body.string("description") {
            guard description.count <= 500 else {
                throw APIError.invalidField(
                    "description", reason: "TOO_LONG", "description must be at most 500 characters")
            }
            update.description = description
        }
        switch body.object["enabled"] {
        case nil, .null?: break
        case .bool(let value)?: update.enabled = value
        default: throw APIError.invalidField("enabled", reason: "NOT_A_BOOLEAN", "enabled must be true or false")
        }
        if !creating, update == WebhookUpdate() {
            throw APIError.invalidField(
                "body", reason: "REQUIRED", "send at least one of url, events, format, description, enabled")
        }
    }

    /// What creating records.
    var draft: WebhookDraft {
        WebhookDraft(
            url: update.url ?? "", events: update.events ?? [], format: update.format ?? "JSON",
            description: update.description ?? "")
    }
}
