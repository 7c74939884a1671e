import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// The fields of a webhook people send (create and `PATCH`), checked beyond their types, naming the field at fault.
struct WebhookBody {
    /// Events a webhook may subscribe to; `*` for all.
    static let events = Set(WebhookEventType.all.map(\.rawValue) + [WebhookEventType.everyEvent])
    static let formats: Set<String> = ["JSON", "SLACK"]
    var update = WebhookUpdate()

    /// Checks what the body's types cannot say: the URL's destination (every address it resolves to, as a
    /// delivery checks it), the event names, the format, the length.
    static func read(_ body: WebhookRequest, allowPrivate: Bool, creating: Bool) async throws -> WebhookBody {
        let checked = try WebhookBody(body, creating: creating)
        if let url = checked.update.url,
            let problem = await WebhookDestination.problem(url: url, allowPrivate: allowPrivate)
        {
            throw APIError.invalidField("url", reason: "INVALID_URL", problem)
        }
        return checked
    }

    /// Checks the fields that need no lookup.
    private init(_ body: WebhookRequest, creating: Bool) throws {
        if let url = body.url {
            if let problem = WebhookDestination.formProblem(url: url) {
                throw APIError.invalidField("url", reason: "INVALID_URL", problem)
            }
            update.url = url
        }
        if let names = body.events {
            var events: [String] = []
            for (index, event) in names.enumerated() {
                guard Self.events.contains(event) else {
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
        }
        if let format = body.format {
            guard Self.formats.contains(format) else {
                throw APIError.invalidField("format", reason: "INVALID_FORMAT", "format must be JSON or SLACK")
            }
            update.format = format
        }
        if let description = body.description {
            guard description.count <= 500 else {
                throw APIError.invalidField(
                    "description", reason: "TOO_LONG", "description must be at most 500 characters")
            }
            update.description = description
        }
        update.enabled = body.enabled
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
