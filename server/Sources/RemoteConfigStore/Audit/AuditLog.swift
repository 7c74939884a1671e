import Foundation
import Logging
import PostgresNIO

/// The append-only record of who changed what, written in the same transaction as the change.
public enum AuditLog {
    /// One page of at most `limit` events of `project` (of every project and of none when nil), newest first,
    /// with ids below `before` (the page token: the last id shown, which is the token this page gives).
    public static func list(_ project: String?, before: Int64?, limit: Int, database: Database) async throws
        -> Page<AuditEvent>
    {
        try await Page.read(size: limit, token: \.id) { limit in
            try await database.run { client in
                let columns =
                    "event_id, time, project_id, actor, actor_key, actor_user, actor_email, action, detail::text"
                let rows =
                    if let project {
                        try await client.query(
                            """
                            SELECT \(unescaped: columns) FROM audit_events
                            WHERE project_id = \(project) AND event_id < \(before ?? Int64.max)
                            ORDER BY event_id DESC LIMIT \(limit)
                            """)
                    } else {
                        try await client.query(
                            """
                            SELECT \(unescaped: columns) FROM audit_events WHERE event_id < \(before ?? Int64.max)
                            ORDER BY event_id DESC LIMIT \(limit)
                            """)
                    }
                var events: [AuditEvent] = []
                for try await (id, time, project, actor, key, user, email, action, detail) in rows.decode(
                    (Int64, Date, String?, String, String?, String?, String?, String, String).self)
                {
                    events.append(
                        AuditEvent(
                            id: id, time: time, project: project, actor: actor, actorKey: key.map { "apiKeys/\($0)" },
                            actorUser: user.map { "users/\($0)" }, actorEmail: email, action: action, detailJSON: detail
                        ))
                }
                return events
            }
        }
    }

    /// Appends one event.
    static func append(
        on connection: PostgresConnection, project: String?, actor: AuditActor, action: String,
        detail: [String: String], logger: Logger
    ) async throws {
        // Codable, keys sorted: the same text for the same detail.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var detail = detail
        if let via = actor.via { detail["via"] = via }
        let json = String(decoding: try encoder.encode(detail), as: UTF8.self)
        try await connection.query(
            """
            INSERT INTO audit_events (project_id, actor, actor_key, actor_user, actor_email, action, detail)
            VALUES (\(project), \(actor.displayName), \(actor.keyId), \(actor.userId), \(actor.email), \(action),
                \(json)::json)
            """, logger: logger)
    }
}

extension APIKey {
    /// This key as the actor of a change (its owner, when it has one, is added by whoever knows them).
    public var auditActor: AuditActor { AuditActor(keyId: id, displayName: displayName, userId: owner) }
}
