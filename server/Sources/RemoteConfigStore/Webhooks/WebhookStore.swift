import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

/// Webhooks and their outbox in PostgreSQL.
public struct WebhookStore: Sendable {
    let database: Database
    /// Seals the signing secrets written, opens those read: the table holds none in plain text.
    let sealer: SecretSealer

    /// The store over `database`, its secrets sealed by `sealer`.
    public init(database: Database, sealer: SecretSealer) {
        self.database = database
        self.sealer = sealer
    }

    /// Where a webhook's secrets are kept, which each is sealed for: a sealed secret opens in its own row only.
    static func secretPlace(_ id: String) -> String { "webhooks/\(id)" }

    /// A new secret: `whsec_` and 32 random bytes in hex.
    public static func makeSecret() -> String {
        "whsec_" + RandomHex.make(bytes: 32)
    }

    static func makeID() -> String {
        RandomHex.make(bytes: 8)
    }

    /// How many webhooks a project may have: each is polled, signed and retried for, so their number is bounded.
    public static let limitPerProject = 25

    /// Creates a webhook and returns it with its secret. `StoreError.notFound` for no such project,
    /// `WebhookLimitReached` when it has `limitPerProject` webhooks already.
    public func create(_ project: String, _ draft: WebhookDraft, actor: AuditActor) async throws -> Webhook {
        try await database.transaction { connection in
            let logger = database.logger
            // Under the project's lock, so two creations at once cannot both pass the count.
            _ = try await TemplateStore.lockProject(project, on: connection, logger: logger)
            let counted = try await connection.query(
                "SELECT count(*)::int8 FROM webhooks WHERE project_id = \(project)", logger: logger)
            for try await count in counted.decode(Int64.self) where count >= Self.limitPerProject {
                throw WebhookLimitReached(project: project, limit: Self.limitPerProject)
            }
            try await ServerSecrets.requireCurrentKey(sealer, on: connection, logger: logger)
            let id = Self.makeID()
            let secret = try sealer.seal(Self.makeSecret(), for: Self.secretPlace(id))
            let rows = try await connection.query(
                """
                INSERT INTO webhooks (webhook_id, project_id, url, events, format, description, secret)
                VALUES (\(id), \(project), \(draft.url), \(draft.events), \(draft.format), \(draft.description),
                    \(secret))
                RETURNING \(unescaped: Self.columns)
                """, logger: logger)
            guard let webhook = try await decode(rows).first else { throw StoreError.notFound("webhook") }
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "webhook.create",
                detail: ["webhook": "webhooks/\(id)", "url": WebhookAuditURL.redact(draft.url)],
                logger: logger)
            return webhook
        }
    }

    /// The webhooks of `project`, oldest first.
    public func list(_ project: String) async throws -> [Webhook] {
        try await database.run { client in
            try await decode(
                try await client.query(
                    "SELECT \(unescaped: Self.columns) FROM webhooks WHERE project_id = \(project) ORDER BY created_at, webhook_id"
                ))
        }
    }

    /// One webhook of `project`, or nil.
    public func get(_ project: String, _ id: String) async throws -> Webhook? {
        try await database.run { client in
            try await decode(
                try await client.query(
                    "SELECT \(unescaped: Self.columns) FROM webhooks WHERE project_id = \(project) AND webhook_id = \(id)"
                )
            ).first
        }
    }

    /// Makes a new secret the signing one; the one it replaces keeps signing beside it for `overlap`. Returns
    /// the webhook (its first active secret is the new one), nil for no such webhook.
    public func rotateSecret(
        _ project: String, _ id: String, overlap: Duration = .seconds(86_400), actor: AuditActor
    ) async throws -> Webhook? {
        try await database.transaction { connection in
            let logger = database.logger
            let seconds = overlap.inSeconds
            try await ServerSecrets.requireCurrentKey(sealer, on: connection, logger: logger)
            let secret = try sealer.seal(Self.makeSecret(), for: Self.secretPlace(id))
            let rows = try await connection.query(
                """
                UPDATE webhooks SET previous_secret = secret, secret = \(secret),
                    previous_expires_at = now() + make_interval(secs => \(seconds))
                WHERE project_id = \(project) AND webhook_id = \(id)
                RETURNING \(unescaped: Self.columns)
                """, logger: logger)
            guard let webhook = try await decode(rows).first else { return nil }
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "webhook.rotateSecret",
                detail: ["webhook": "webhooks/\(id)"], logger: logger)
            return webhook
        }
    }

    /// Records an event of `project` for every enabled webhook subscribed to `type`, inside the caller's
    /// transaction: the deliveries exist exactly when the change commits. `dataJSON` is the event's facts.
    public static func enqueue(
        _ project: String, type: WebhookEventType, actor: AuditActor, dataJSON: String,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        // Deliverers on every replica are told (`deliver <project>`) only when something was queued, in the same
        // statement, so a change to a project without webhooks costs no notification.
        let wake = StoreEvent.deliveryQueued(project: project).payload ?? ""
        try await connection.query(
            """
            WITH queued AS (
                INSERT INTO webhook_deliveries (delivery_id, webhook_id, project_id, event_type, actor_key,
                    actor_name, data, actor_user, actor_email)
                SELECT gen_random_uuid()::text, webhook_id, project_id, \(type.rawValue), \(actor.keyId),
                    \(actor.displayName), \(dataJSON)::json, \(actor.userId), \(actor.email)
                FROM webhooks
                WHERE project_id = \(project) AND enabled AND (\(type.rawValue) = ANY (events) OR \(WebhookEventType.everyEvent) = ANY (events))
                ORDER BY webhook_id
                RETURNING 1
            )
            SELECT pg_notify(\(StoreEvent.channel), \(wake)) FROM (SELECT 1 FROM queued LIMIT 1) AS any_queued
            """, logger: logger)
    }

    /// Queues a `ping` to one webhook (whatever its events), audited; returns the delivery id, nil for no such
    /// webhook.
    public func ping(_ project: String, _ id: String, actor: AuditActor) async throws -> String? {
        try await database.transaction { connection in
            let logger = database.logger
            let rows = try await connection.query(
                """
                INSERT INTO webhook_deliveries (delivery_id, webhook_id, project_id, event_type, actor_key,
                    actor_name, data, actor_user, actor_email)
                SELECT gen_random_uuid()::text, webhook_id, project_id, \(WebhookEventType.ping.rawValue), \(actor.keyId), \(actor.displayName),
                    '{}'::json, \(actor.userId), \(actor.email)
                FROM webhooks WHERE project_id = \(project) AND webhook_id = \(id)
                RETURNING delivery_id
                """, logger: logger)
            var delivery: String?
            for try await made in rows.decode(String.self) { delivery = made }
            guard let delivery else { return nil }
            try await StoreEvent.deliveryQueued(project: project).notify(on: connection, logger: logger)
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "webhook.test",
                detail: ["webhook": "webhooks/\(id)", "delivery": delivery], logger: logger)
            return delivery
        }
    }

    static let columns = """
        webhook_id, project_id, url, events, format, description, enabled, created_at, secret,
        CASE WHEN previous_expires_at > now() THEN previous_secret END, revision
        """

    /// The webhooks of `rows` (`columns`), their secrets opened.
    func decode(_ rows: PostgresRowSequence) async throws -> [Webhook] {
        var result: [Webhook] = []
        for try await (id, project, url, events, format, description, enabled, created, secret, previous, revision)
            in rows.decode(
                (String, String, String, [String], String, String, Bool, Date, String, String?, Int64).self)
        {
            let place = Self.secretPlace(id)
            let secrets = try ([secret] + (previous.map { [$0] } ?? [])).map { try sealer.open($0, for: place) }
            result.append(
                Webhook(
                    id: id, project: project, url: url, events: events, format: format, description: description,
                    enabled: enabled, createTime: created, activeSecrets: secrets, revision: revision))
        }
        return result
    }
}
