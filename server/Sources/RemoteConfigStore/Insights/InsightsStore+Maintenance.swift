import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

extension InsightsStore {
    /// Hourly rows are kept this long, then rolled up into daily ones.
    public static let hourlyDays = 14

    /// Deletes what is older than `retentionDays`, and hourly rows older than `hourlyDays` (days then read
    /// from the daily rows), when no other server is doing it now (whichever gets there first does it). Returns whether this one did.
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
                "insight_versions_imported",
            ] {
                try await connection.query(
                    "DELETE FROM \(unescaped: table) WHERE bucket < \(cutoff)", logger: logger)
            }
            try await connection.query("DELETE FROM insight_samples WHERE last_seen < \(cutoff)", logger: logger)
            try await connection.query(
                "DELETE FROM insight_writes WHERE written_at < \(now.addingTimeInterval(-86_400))", logger: logger)
            try await rollUp(before: rollUpBefore, on: connection, logger: logger)
            return true
        }
    }

    /// Deletes hourly rows of days before `before`: the daily rows, written by every flush beside the hourly
    /// ones, already hold them.
    private func rollUp(before: Date, on connection: PostgresConnection, logger: Logger) async throws {
        for table in ["insight_versions_hourly", "insight_parameters_hourly", "insight_conditions_hourly"] {
            try await connection.query("DELETE FROM \(unescaped: table) WHERE bucket < \(before)", logger: logger)
        }
    }
}
