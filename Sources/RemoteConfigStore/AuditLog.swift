import Foundation
import Logging
import PostgresNIO

/// One recorded change.
public struct AuditEvent: Sendable, Equatable {
    public let id: Int64
    public let time: Date
    public let actor: String
    public let action: String
    /// The event's details as JSON text.
    public let detailJSON: String
}

/// The append-only record of who changed what, written in the same transaction as the change.
public enum AuditLog {
    /// Events of `project`, newest first, with ids below `before` (the page token).
    public static func list(_ project: String, before: Int64?, limit: Int, database: Database) async throws
        -> [AuditEvent]
    {
        try await database.run { client in
            let rows = try await client.query(
                """
                SELECT event_id, time, actor, action, detail::text FROM audit_events
                WHERE project_id = \(project) AND event_id < \(before ?? Int64.max)
                ORDER BY event_id DESC LIMIT \(limit)
                """)
            var events: [AuditEvent] = []
            for try await (id, time, actor, action, detail) in rows.decode((Int64, Date, String, String, String).self) {
                events.append(AuditEvent(id: id, time: time, actor: actor, action: action, detailJSON: detail))
            }
            return events
        }
    }

    /// Appends one event.
    static func append(
        on connection: PostgresConnection, project: String?, actor: String, action: String,
        detail: [String: String], logger: Logger
    ) async throws {
        let data = try JSONSerialization.data(withJSONObject: detail, options: [.sortedKeys])
        let json = String(decoding: data, as: UTF8.self)
        try await connection.query(
            """
            INSERT INTO audit_events (project_id, actor, action, detail)
            VALUES (\(project), \(actor), \(action), \(json)::json)
            """, logger: logger)
    }
}
