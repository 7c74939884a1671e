import Foundation
import Logging
import PostgresNIO

/// The append-only record of who changed what, written in the same transaction as the change.
public enum AuditLog {
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
