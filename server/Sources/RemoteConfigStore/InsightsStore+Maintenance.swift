import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

extension InsightsStore {
    /// Hourly rows are kept this long, then rolled up into daily ones.
    public static let hourlyDays = 14

    /// Deletes what is older than `retentionDays` and rolls up hourly rows older than `hourlyDays`, when no
    /// other server is doing it now (whichever gets there first does it). Returns whether this one did.
    @discardableResult
    public func maintain(retentionDays: Int, now: Date = Date()) async throws -> Bool {
        let logger = database.logger
        let cutoff = now.addingTimeInterval(-Double(retentionDays) * 86400)
        let rollUpBefore = Date(
            timeIntervalSince1970: ((now.timeIntervalSince1970 / 86400).rounded(.down) - Double(Self.hourlyDays))
                * 86400)
        return try await database.transaction { connection in
            var taken = false
            let lock = try await connection.query(
                "SELECT pg_try_advisory_xact_lock(\(Self.maintenanceLock))", logger: logger)
            for try await value in lock.decode(Bool.self) { taken = value }
            guard taken else { return false }
            for table in [
                "insight_versions_hourly", "insight_versions_daily", "insight_parameters_hourly",
                "insight_parameters_daily", "insight_conditions_hourly", "insight_conditions_daily",
            ] {
                try await connection.query(
                    "DELETE FROM \(unescaped: table) WHERE bucket < \(cutoff)", logger: logger)
            }
            try await connection.query("DELETE FROM insight_samples WHERE last_seen < \(cutoff)", logger: logger)
            try await rollUp(before: rollUpBefore, on: connection, logger: logger)
            return true
        }
    }

    /// Moves hourly rows of days before `before` into the daily tables: counts summed, sketches merged.
    private func rollUp(before: Date, on connection: PostgresConnection, logger: Logger) async throws {
        let days = try await connection.query(
            """
            SELECT DISTINCT project_id, date_trunc('day', bucket, 'UTC') FROM insight_versions_hourly
            WHERE bucket < \(before)
            """, logger: logger)
        var projectDays: [(String, Date)] = []
        for try await row in days.decode((String, Date).self) { projectDays.append(row) }
        for (project, day) in projectDays {
            try await Self.lock(project, on: connection, logger: logger)
            let next = day.addingTimeInterval(86400)
            let rows = try await connection.query(
                """
                SELECT platform, version, answers, sketch FROM insight_versions_hourly
                WHERE project_id = \(project) AND bucket >= \(day) AND bucket < \(next)
                """, logger: logger)
            var counts = InsightCounts()
            for try await (platform, version, answers, sketch) in rows.decode(
                (String, String, Int64, ByteBuffer).self)
            {
                counts.add(
                    .init(platform: platform, version: version),
                    .init(
                        answers: Int(answers),
                        instances: HyperLogLog(serialized: sketch.readableBytesView) ?? HyperLogLog()))
            }
            let key = InsightsBatch.Key(project: project, hour: Int(day.timeIntervalSince1970 / 3600))
            try await Self.addVersions(key, counts, table: "insight_versions_daily", on: connection, bucket: day)
            try await connection.query(
                """
                DELETE FROM insight_versions_hourly
                WHERE project_id = \(project) AND bucket >= \(day) AND bucket < \(next)
                """, logger: logger)
        }
        try await connection.query(
            """
            INSERT INTO insight_parameters_daily AS t (project_id, bucket, parameter, source, condition, answers)
            SELECT project_id, date_trunc('day', bucket, 'UTC'), parameter, source, condition, sum(answers)
            FROM insight_parameters_hourly WHERE bucket < \(before)
            GROUP BY 1, 2, 3, 4, 5
            ON CONFLICT (project_id, bucket, parameter, source, condition)
            DO UPDATE SET answers = t.answers + EXCLUDED.answers
            """, logger: logger)
        try await connection.query(
            "DELETE FROM insight_parameters_hourly WHERE bucket < \(before)", logger: logger)
        try await connection.query(
            """
            INSERT INTO insight_conditions_daily AS t (project_id, bucket, condition, matched)
            SELECT project_id, date_trunc('day', bucket, 'UTC'), condition, sum(matched)
            FROM insight_conditions_hourly WHERE bucket < \(before)
            GROUP BY 1, 2, 3
            ON CONFLICT (project_id, bucket, condition) DO UPDATE SET matched = t.matched + EXCLUDED.matched
            """, logger: logger)
        try await connection.query(
            "DELETE FROM insight_conditions_hourly WHERE bucket < \(before)", logger: logger)
    }
}
