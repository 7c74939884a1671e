import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

extension InsightsStore {
    /// Upserts sampled instances (their newest context wins), then keeps the project's `keep` smallest hashes.
    /// Returns the largest kept hash when `keep` are kept (nil while the sample is not full); with no
    /// instances, only reads it.
    static func addSample(
        _ project: String, _ sample: BottomKSample<InsightsBatch.Sample>, keep: Int, on connection: PostgresConnection
    ) async throws -> Int64? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var hashes: [Int64] = []
        var contexts: [String] = []
        var seen: [Date] = []
        for (hash, entry) in sample.entries {
            hashes.append(hash)
            contexts.append(String(decoding: try encoder.encode(entry.context), as: UTF8.self))
            seen.append(entry.lastSeen)
        }
        let logger = Logger(label: "insights")
        if !hashes.isEmpty {
            try await connection.query(
                """
                INSERT INTO insight_samples AS s (project_id, instance_hash, context, last_seen)
                SELECT \(project), h, c::jsonb, t FROM unnest(\(hashes)::bigint[], \(contexts)::text[],
                    \(seen)::timestamptz[]) AS u (h, c, t)
                ON CONFLICT (project_id, instance_hash) DO UPDATE
                SET context = CASE WHEN EXCLUDED.last_seen >= s.last_seen THEN EXCLUDED.context ELSE s.context END,
                    last_seen = greatest(s.last_seen, EXCLUDED.last_seen)
                """, logger: logger)
        }
        var bound: Int64?
        for try await value in try await connection.query(
            """
            SELECT instance_hash FROM insight_samples WHERE project_id = \(project)
            ORDER BY instance_hash OFFSET \(max(keep, 1) - 1) LIMIT 1
            """, logger: logger
        ).decode(Int64.self) { bound = value }
        guard let bound else { return nil }
        try await connection.query(
            "DELETE FROM insight_samples WHERE project_id = \(project) AND instance_hash > \(bound)", logger: logger)
        return bound
    }

    /// Each project's sample bound, for a server that starts: the largest of the `keep` smallest stored hashes,
    /// for the projects whose stored sample holds `keep` instances. A restarted server's samples begin there
    /// instead of taking `keep` instances again on every event loop.
    public func sampleBounds(keep: Int) async throws -> [String: Int64] {
        guard keep > 0 else { return [:] }
        return try await database.run { client in
            var bounds: [String: Int64] = [:]
            let rows = try await client.query(
                """
                SELECT p.project_id, b.instance_hash FROM projects p
                CROSS JOIN LATERAL (
                    SELECT instance_hash FROM insight_samples s WHERE s.project_id = p.project_id
                    ORDER BY instance_hash OFFSET \(keep - 1) LIMIT 1
                ) b
                """)
            for try await (project, bound) in rows.decode((String, Int64).self) { bounds[project] = bound }
            return bounds
        }
    }
}
