import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

/// Fleet insights in PostgreSQL: each server's flushes add up, reads merge sketches over a window. A flush
/// writes each hour's counts to the hourly rows and to the day's; hourly rows go after 14 days, daily ones
/// after the retention.
///
/// A flush takes the project's advisory lock for its transaction, so two servers flushing the same project
/// take turns: counts are added in SQL (`answers = answers + EXCLUDED.answers`) and sketches are read,
/// merged with the new ones in Swift (register-wise maximum) and written back under that lock, so no
/// concurrent flush loses a count or an instance.
public struct InsightsStore: Sendable {
    let database: Database

    /// The first key of the advisory locks insights take (the second is the project's `hashtext`).
    static let lockSpace: Int32 = 0x1A51
    /// The key of the lock that one server at a time holds while rolling up and deleting old rows.
    static let maintenanceLock: Int64 = 0x1A51_0000_0001

    public init(database: Database) {
        self.database = database
    }

    /// Adds one server's counts and samples; `sampleSize` is how many instances each project's sample keeps.
    /// Returns, for each project whose sample it wrote or read, the stored sample's largest key when the sample
    /// is full (no instance above it can enter the sample now), else `Int64.max` (any can: the sample is still
    /// filling, or lost instances to the retention): the bound each thread's sample follows
    /// (`InsightsRecorder.adopt`). With `write`, a project's part that is in already (`InsightsWrite`) adds
    /// nothing and has no bound.
    @discardableResult
    public func add(_ batch: InsightsBatch, sampleSize: Int, as write: InsightsWrite? = nil) async throws
        -> [String: Int64]
    {
        var bounds: [String: Int64] = [:]
        for project in batch.projects.sorted() {
            let counts = batch.counts.filter { $0.key.project == project }
            let sample = batch.samples[project]
            let bound: Int64? = try await database.transaction { connection in
                try await Self.lock(project, on: connection, logger: database.logger)
                let adds = counts.values.contains { !$0.isEmpty } || sample?.entries.isEmpty == false
                if let write, adds {
                    guard try await Self.isNew(write, project, on: connection) else { return nil }
                }
                for (key, count) in counts where !count.isEmpty {
                    // The day's rows are kept up to date too, so that a window of days reads one row per day
                    // and version rather than 24.
                    let day = Self.day(of: key.start)
                    let sources = count.sources
                    try await Self.addVersions(key, count, table: "insight_versions_hourly", on: connection)
                    try await Self.addVersions(key, count, table: "insight_versions_daily", on: connection, bucket: day)
                    try await Self.addSources(key.project, key.start, sources, suffix: "hourly", on: connection)
                    try await Self.addSources(key.project, day, sources, suffix: "daily", on: connection)
                }
                // Also with nothing new: the other servers' flushes may have lowered the bound since.
                guard let sample else { return nil }
                return try await Self.addSample(project, sample, keep: sampleSize, on: connection) ?? .max
            }
            bounds[project] = bound
        }
        return bounds
    }

    /// Moves `project`'s place of `write`'s server on to `write`, in this transaction; false when the server's
    /// place is there or past it already (the write is in).
    static func isNew(_ write: InsightsWrite, _ project: String, on connection: PostgresConnection) async throws
        -> Bool
    {
        let rows = try await connection.query(
            """
            INSERT INTO insight_writes AS w (writer_id, project_id, last_sequence)
            VALUES (\(write.writer), \(project), \(write.sequence))
            ON CONFLICT (writer_id, project_id) DO UPDATE SET last_sequence = EXCLUDED.last_sequence, written_at = now()
            WHERE w.last_sequence < EXCLUDED.last_sequence
            RETURNING 1
            """, logger: Logger(label: "insights"))
        for try await _ in rows { return true }
        return false
    }

    /// The start of the UTC day of `date`.
    static func day(of date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 86400).rounded(.down) * 86400)
    }

    static func lock(_ project: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "SELECT pg_advisory_xact_lock(\(lockSpace), hashtext(\(project)))", logger: logger)
    }

    /// Adds version counts of one bucket to `table`, keeping at most `InsightVersion.maximumPerPlatform`
    /// versions per platform in the bucket however many servers add to it (must hold the project's lock).
    static func addVersions(
        _ key: InsightsBatch.Key, _ counts: InsightCounts, table: String, on connection: PostgresConnection,
        bucket: Date? = nil
    ) async throws {
        let start = bucket ?? key.start
        let rows = try await connection.query(
            """
            SELECT platform, version, sketch FROM \(unescaped: table)
            WHERE project_id = \(key.project) AND bucket = \(start)
            """, logger: Logger(label: "insights"))
        var merged = InsightCounts()
        var existing = Set<InsightCounts.VersionKey>()
        for try await (platform, version, sketch) in rows.decode((String, String, ByteBuffer).self) {
            let versionKey = InsightCounts.VersionKey(platform: platform, version: version)
            existing.insert(versionKey)
            merged.add(
                versionKey,
                .init(answers: 0, instances: HyperLogLog(serialized: sketch.readableBytesView) ?? HyperLogLog()))
        }
        var added: [InsightCounts.VersionKey: Int] = [:]
        for (versionKey, count) in counts.versions {
            // Where the bound folded it, the answers go to `(other)`.
            added[merged.add(versionKey, count), default: 0] += count.answers
        }
        var platforms: [String] = []
        var versions: [String] = []
        var answers: [Int64] = []
        var sketches: [ByteBuffer] = []
        for (versionKey, count) in merged.versions where added[versionKey] != nil || !existing.contains(versionKey) {
            platforms.append(versionKey.platform)
            versions.append(versionKey.version)
            answers.append(Int64(added[versionKey] ?? 0))
            sketches.append(ByteBuffer(bytes: count.instances.serialized()))
        }
        guard !platforms.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO \(unescaped: table) AS t (project_id, bucket, platform, version, answers, sketch)
            SELECT \(key.project), \(start), * FROM unnest(\(platforms)::text[], \(versions)::text[],
                \(answers)::bigint[], \(sketches)::bytea[])
            ON CONFLICT (project_id, bucket, platform, version)
            DO UPDATE SET answers = t.answers + EXCLUDED.answers, sketch = EXCLUDED.sketch
            """, logger: Logger(label: "insights"))
    }

    /// Adds answers by parameter source and matched condition (`parameter` nil) to the `suffix` tables.
    static func addSources(
        _ project: String, _ bucket: Date, _ sources: [InsightCounts.SourceKey: Int], suffix: String,
        on connection: PostgresConnection
    ) async throws {
        var parameters: [String] = []
        var kinds: [String] = []
        var deciding: [String] = []
        var answers: [Int64] = []
        var conditions: [String] = []
        var matched: [Int64] = []
        for (key, count) in sources {
            if let parameter = key.parameter {
                parameters.append(parameter)
                kinds.append(key.source)
                deciding.append(key.condition)
                answers.append(Int64(count))
            } else {
                conditions.append(key.condition)
                matched.append(Int64(count))
            }
        }
        if !parameters.isEmpty {
            try await connection.query(
                """
                INSERT INTO \(unescaped: "insight_parameters_" + suffix) AS t
                    (project_id, bucket, parameter, source, condition, answers)
                SELECT \(project), \(bucket), * FROM unnest(\(parameters)::text[], \(kinds)::text[],
                    \(deciding)::text[], \(answers)::bigint[])
                ON CONFLICT (project_id, bucket, parameter, source, condition)
                DO UPDATE SET answers = t.answers + EXCLUDED.answers
                """, logger: Logger(label: "insights"))
        }
        if !conditions.isEmpty {
            try await connection.query(
                """
                INSERT INTO \(unescaped: "insight_conditions_" + suffix) AS t (project_id, bucket, condition, matched)
                SELECT \(project), \(bucket), * FROM unnest(\(conditions)::text[], \(matched)::bigint[])
                ON CONFLICT (project_id, bucket, condition) DO UPDATE SET matched = t.matched + EXCLUDED.matched
                """, logger: Logger(label: "insights"))
        }
    }
}
