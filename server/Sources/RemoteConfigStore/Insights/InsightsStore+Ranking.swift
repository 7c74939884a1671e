import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

extension InsightsStore {
    /// Ranks the stored impact sample by `key`'s `SampleHash`, inside the caller's transaction: what the first
    /// start with a sample key does with the instances stored by releases that ranked them by the public hash.
    /// Every instance is kept with its context (an id's context names it); the collecting servers then keep the
    /// smallest keyed hashes among them and the instances they see. Project by project, so that no more than
    /// one project's sample is held at once. Returns how many instances it ranked.
    static func rankSample(by key: SipHashKey, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        var projects: [String] = []
        for try await project in try await connection.query(
            "SELECT DISTINCT project_id FROM insight_samples ORDER BY project_id", logger: logger
        ).decode(String.self) { projects.append(project) }
        var count = 0
        for project in projects {
            // Taken out and put back, rather than updated in place: two rows never hold one hash in between.
            let rows = try await connection.query(
                """
                DELETE FROM insight_samples WHERE project_id = \(project)
                RETURNING context->>'appInstanceId', context::text, last_seen
                """, logger: logger)
            // An instance stored twice (once per hash of a release before) becomes one, with its newer context.
            var ranked: [Int64: (context: String, seen: Date)] = [:]
            for try await (id, context, last) in rows.decode((String?, String, Date).self) {
                guard let id else { continue }
                let rank = SampleHash.of(id, key: key)
                if let kept = ranked[rank], kept.seen >= last { continue }
                ranked[rank] = (context, last)
            }
            var hashes: [Int64] = []
            var contexts: [String] = []
            var seen: [Date] = []
            for (rank, entry) in ranked {
                hashes.append(rank)
                contexts.append(entry.context)
                seen.append(entry.seen)
            }
            try await connection.query(
                """
                INSERT INTO insight_samples (project_id, instance_hash, context, last_seen)
                SELECT \(project), h, c::jsonb, t FROM unnest(\(hashes)::bigint[], \(contexts)::text[],
                    \(seen)::timestamptz[]) AS u (h, c, t)
                """, logger: logger)
            count += hashes.count
        }
        return count
    }
}
