import Foundation
import Logging
import PostgresNIO

extension WebhookStore {
    /// Changes the fields `update` sets, when the webhook is still at `expectedRevision` (any revision when nil;
    /// `StaleRevision` otherwise); nil for no such webhook. The audit entry says what changed, its URL redacted.
    public func update(
        _ project: String, _ id: String, _ update: WebhookUpdate, expectedRevision: Int64? = nil, actor: AuditActor
    ) async throws -> Webhook? {
        try await database.transaction { connection in
            let logger = database.logger
            guard let before = try await lock(project, id, expectedRevision, on: connection, logger: logger)
            else { return nil }
            let rows = try await connection.query(
                """
                UPDATE webhooks SET url = coalesce(\(update.url), url), events = coalesce(\(update.events), events),
                    format = coalesce(\(update.format), format), description = coalesce(\(update.description), description),
                    enabled = coalesce(\(update.enabled), enabled), revision = nextval('settings_revisions')
                WHERE project_id = \(project) AND webhook_id = \(id)
                RETURNING \(unescaped: Self.columns)
                """, logger: logger)
            guard let webhook = try await decode(rows).first else { return nil }
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "webhook.update",
                detail: Self.changes(from: before, to: webhook), logger: logger)
            return webhook
        }
    }

    /// Deletes a webhook and its deliveries when it is still at `expectedRevision` (any when nil; `StaleRevision`
    /// otherwise); false for no such webhook.
    public func delete(_ project: String, _ id: String, expectedRevision: Int64? = nil, actor: AuditActor)
        async throws -> Bool
    {
        try await database.transaction { connection in
            let logger = database.logger
            guard try await lock(project, id, expectedRevision, on: connection, logger: logger) != nil else {
                return false
            }
            try await connection.query(
                "DELETE FROM webhooks WHERE project_id = \(project) AND webhook_id = \(id)", logger: logger)
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "webhook.delete",
                detail: ["webhook": "webhooks/\(id)"], logger: logger)
            return true
        }
    }

    /// The webhook, locked until the transaction ends; nil for none, `StaleRevision` when it is not at `expected`.
    func lock(
        _ project: String, _ id: String, _ expected: Int64?, on connection: PostgresConnection, logger: Logger
    ) async throws -> Webhook? {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: Self.columns) FROM webhooks WHERE project_id = \(project) AND webhook_id = \(id)
            FOR UPDATE
            """, logger: logger)
        guard let webhook = try await decode(rows).first else { return nil }
        if let expected, expected != webhook.revision { throw StaleRevision("webhook", current: webhook.revision) }
        return webhook
    }

    /// An update's audit detail: the webhook, and each field whose value changed, as it is now (the URL as scheme
    /// and host).
    static func changes(from before: Webhook, to after: Webhook) -> [String: String] {
        var detail = ["webhook": "webhooks/\(after.id)"]
        if before.url != after.url { detail["url"] = WebhookAuditURL.redact(after.url) }
        if before.events != after.events { detail["events"] = after.events.joined(separator: ",") }
        if before.format != after.format { detail["format"] = after.format }
        if before.description != after.description { detail["description"] = after.description }
        if before.enabled != after.enabled { detail["enabled"] = String(after.enabled) }
        return detail
    }
}
