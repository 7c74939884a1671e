import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

extension WebhookStore {
    /// One page of at most `limit` deliveries of one webhook, newest first, with `seq` below `before` (the page
    /// token: the last `seq` shown, which is the token this page gives).
    public func deliveries(_ project: String, _ webhook: String, before: Int64?, limit: Int) async throws
        -> Page<WebhookDelivery>
    {
        try await Page.read(size: limit, token: \.seq) { limit in
            try await database.run { client in
                let rows = try await client.query(
                    """
                    SELECT \(unescaped: Self.deliveryColumns) FROM webhook_deliveries
                    WHERE project_id = \(project) AND webhook_id = \(webhook) AND seq < \(before ?? Int64.max)
                    ORDER BY seq DESC LIMIT \(limit)
                    """)
                return try await Self.decodeDeliveries(rows)
            }
        }
    }

    /// Sends a delivery again, audited: a new attempt of the same delivery id, as soon as a deliverer is free. Nil
    /// for no such delivery.
    public func redeliver(_ project: String, _ webhook: String, _ delivery: String, actor: AuditActor) async throws
        -> WebhookDelivery?
    {
        try await database.transaction { connection in
            let logger = database.logger
            let rows = try await connection.query(
                """
                UPDATE webhook_deliveries SET state = 'PENDING', next_attempt_at = now(), lease_token = NULL,
                    lease_until = NULL
                WHERE project_id = \(project) AND webhook_id = \(webhook) AND delivery_id = \(delivery)
                RETURNING \(unescaped: Self.deliveryColumns)
                """, logger: logger)
            guard let found = try await Self.decodeDeliveries(rows).first else { return nil }
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "webhook.redeliver",
                detail: ["webhook": "webhooks/\(webhook)", "delivery": delivery], logger: logger)
            return found
        }
    }

    /// Forgets what the outbox no longer needs, so it does not grow for ever: delivered and failed deliveries
    /// whose last attempt is older than `finished`, and the bodies of those older than `bodies` (a redelivery
    /// makes the body again from the event's facts). At most `batch` rows of each a call; returns how many
    /// deliveries and bodies went.
    public func prune(finished: Duration, bodies: Duration, batch: Int = 10_000) async throws -> (
        deliveries: Int, bodies: Int
    ) {
        let finishedSeconds = finished.inSeconds
        let bodySeconds = bodies.inSeconds
        return try await database.run { client in
            let deleted = try await client.query(
                """
                WITH old AS (
                    SELECT seq FROM webhook_deliveries
                    WHERE state <> 'PENDING' AND last_attempt_at < now() - make_interval(secs => \(finishedSeconds))
                    LIMIT \(batch)
                )
                DELETE FROM webhook_deliveries d USING old WHERE d.seq = old.seq RETURNING d.seq
                """)
            var deliveries = 0
            for try await _ in deleted { deliveries += 1 }
            let cleared = try await client.query(
                """
                WITH old AS (
                    SELECT seq FROM webhook_deliveries
                    WHERE state <> 'PENDING' AND body IS NOT NULL
                      AND last_attempt_at < now() - make_interval(secs => \(bodySeconds))
                    LIMIT \(batch)
                )
                UPDATE webhook_deliveries d SET body = NULL FROM old WHERE d.seq = old.seq RETURNING d.seq
                """)
            var bodies = 0
            for try await _ in cleared { bodies += 1 }
            return (deliveries, bodies)
        }
    }

    /// Claims up to `limit` due deliveries for one attempt each, under a lease of `lease`.
    ///
    /// Only the oldest pending delivery of each enabled webhook is due (so a webhook's events go out in order,
    /// and a failing webhook holds back only its own). Rows are locked with `SKIP LOCKED` and rechecked, so two
    /// servers never claim one delivery; the lease keeps it theirs while they send.
    public func claim(limit: Int, lease: Duration) async throws -> [ClaimedDelivery] {
        let granted = Lease(lasting: lease)
        return try await database.transaction { connection in
            let logger = database.logger
            let rows = try await connection.query(
                """
                WITH heads AS (
                    SELECT DISTINCT ON (webhook_id) seq FROM webhook_deliveries
                    WHERE state = 'PENDING' ORDER BY webhook_id, seq
                )
                SELECT d.seq FROM webhook_deliveries d JOIN heads h ON h.seq = d.seq
                JOIN webhooks w ON w.webhook_id = d.webhook_id AND w.enabled
                WHERE d.state = 'PENDING' AND d.next_attempt_at <= now()
                  AND (d.lease_until IS NULL OR d.lease_until < clock_timestamp())
                ORDER BY d.seq LIMIT \(limit)
                FOR UPDATE OF d SKIP LOCKED
                """, logger: logger)
            var claimed: [Int64] = []
            for try await seq in rows.decode(Int64.self) { claimed.append(seq) }
            guard !claimed.isEmpty else { return [] }
            let updated = try await connection.query(
                """
                UPDATE webhook_deliveries SET lease_token = \(granted.token),
                    lease_until = clock_timestamp() + make_interval(secs => \(granted.seconds))
                WHERE seq = ANY (\(claimed))
                RETURNING seq, delivery_id, webhook_id, event_type, actor_key, actor_name, data::text, body, attempts,
                    created_at, actor_user, actor_email
                """, logger: logger)
            var found:
                [(Int64, String, String, String, String?, String, String, String?, Int32, Date, String?, String?)] =
                    []
            for try await row in updated.decode(
                (Int64, String, String, String, String?, String, String, String?, Int32, Date, String?, String?).self)
            {
                found.append(row)
            }
            let webhookIDs = Array(Set(found.map { $0.2 }))
            let webhooks = try await decode(
                try await connection.query(
                    "SELECT \(unescaped: Self.columns) FROM webhooks WHERE webhook_id = ANY (\(webhookIDs))",
                    logger: logger))
            let byID = Dictionary(webhooks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            var result: [ClaimedDelivery] = []
            for (seq, id, webhookID, type, actorKey, actorName, data, body, attempts, created, user, email) in found {
                guard let webhook = byID[webhookID] else { continue }
                result.append(
                    ClaimedDelivery(
                        seq: seq, id: id, webhook: webhook, type: WebhookEventType(rawValue: type), actorKey: actorKey,
                        actorName: actorName,
                        dataJSON: data, body: body, attempts: Int(attempts), createTime: created, lease: granted,
                        actorUser: user, actorEmail: email))
            }
            return result.sorted { $0.seq < $1.seq }
        }
    }

    /// Keeps the body made for a claimed delivery's first attempt, so every retry sends the same bytes.
    public func saveBody(_ delivery: ClaimedDelivery, body: String) async throws {
        try await database.run { client in
            try await client.execute(
                """
                UPDATE webhook_deliveries SET body = \(body)
                WHERE seq = \(delivery.seq) AND lease_token = \(delivery.lease.token) AND body IS NULL
                """)
        }
    }

    /// Records an attempt of a claimed delivery and lets go of it: `DELIVERED`, or `PENDING` again after
    /// `retryAfter`, or `FAILED` when that would be later than `giveUpAfter` past its creation. Does nothing
    /// when the lease was lost meanwhile (another server owns the delivery now).
    public func record(
        _ delivery: ClaimedDelivery, _ outcome: DeliveryOutcome, retryAfter: Duration, giveUpAfter: Duration
    ) async throws {
        let retry = retryAfter.inSeconds
        let window = giveUpAfter.inSeconds
        let error = outcome.error.map { String($0.prefix(500)) }
        let status = outcome.status.map { Int32($0) }
        try await database.run { client in
            try await client.execute(
                """
                UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = \(status),
                    last_error = \(error), last_attempt_at = clock_timestamp(), lease_token = NULL, lease_until = NULL,
                    state = CASE WHEN \(outcome.delivered) THEN 'DELIVERED'
                        WHEN clock_timestamp() + make_interval(secs => \(retry))
                            > created_at + make_interval(secs => \(window)) THEN 'FAILED'
                        ELSE 'PENDING' END,
                    next_attempt_at = clock_timestamp() + make_interval(secs => \(retry))
                WHERE seq = \(delivery.seq) AND lease_token = \(delivery.lease.token)
                """)
        }
    }

    static let deliveryColumns = """
        seq, delivery_id, webhook_id, project_id, event_type, state, attempts, last_status, last_error,
        last_attempt_at, CASE WHEN state = 'PENDING' THEN next_attempt_at END, created_at
        """

    static func decodeDeliveries(_ rows: PostgresRowSequence) async throws -> [WebhookDelivery] {
        var result: [WebhookDelivery] = []
        for try await (seq, id, webhook, project, type, state, attempts, status, error, last, next, created)
            in rows.decode(
                (Int64, String, String, String, String, String, Int32, Int32?, String?, Date?, Date?, Date).self)
        {
            result.append(
                WebhookDelivery(
                    seq: seq, id: id, webhook: webhook, project: project, type: WebhookEventType(rawValue: type),
                    state: WebhookDelivery.State(rawValue: state) ?? .pending, attempts: Int(attempts),
                    lastStatus: status.map(Int.init), lastError: error, lastAttemptTime: last, nextAttemptTime: next,
                    createTime: created))
        }
        return result
    }
}
