import Foundation
import PostgresNIO
import RemoteConfigCore

extension InsightsStore {
    /// Keeps `rows` (at most one per day, platform and version), each replacing what an earlier import said of
    /// its day, platform and version, in one transaction with its audit event: a call is kept whole or not at all.
    public func importDays(_ project: String, _ rows: [InsightsImport.Row], actor: AuditActor) async throws {
        guard let first = rows.map(\.day).min(), let last = rows.map(\.day).max() else { return }
        let days = rows.map(\.day)
        let platforms = rows.map(\.platform.rawValue)
        let versions = rows.map(\.version)
        let counts = rows.map { Int64($0.activeInstances) }
        let logger = database.logger
        let detail = [
            "rows": String(rows.count), "firstDate": Self.dayText(first), "lastDate": Self.dayText(last),
            "platforms": Set(platforms).sorted().joined(separator: ","),
        ]
        try await database.transaction { connection in
            try await connection.query(
                """
                INSERT INTO insight_versions_imported AS i (project_id, bucket, platform, version, active_instances)
                SELECT \(project), d, p, v, n
                FROM unnest(\(days)::timestamptz[], \(platforms)::text[], \(versions)::text[], \(counts)::bigint[])
                    AS u (d, p, v, n)
                ON CONFLICT (project_id, platform, bucket, version) DO UPDATE
                SET active_instances = EXCLUDED.active_instances, imported_at = now()
                """, logger: logger)
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "insights.import", detail: detail,
                logger: logger)
        }
    }

    /// `YYYY-MM-DD` of a UTC day.
    public static func dayText(_ day: Date) -> String {
        day.formatted(Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day())
    }
}
