import Foundation
import PostgresNIO

/// Reads the impact sample (`insight_samples`): the app instances with the smallest hashes of their ids,
/// each with the context it last sent. The collecting servers write it; impact estimates read it.
public struct InsightSampleStore: Sendable {
    let database: Database

    /// The store over `database`.
    public init(database: Database) {
        self.database = database
    }

    /// The sampled instances of `project` seen at or after `since`: the `limit` with the smallest hashes.
    ///
    /// The smallest hashes among those seen recently are a uniform sample of the recent instances, because
    /// an instance's hash does not depend on when it was seen.
    public func recent(_ project: String, since: Date, limit: Int = 10_000) async throws -> [InsightSample] {
        try await database.run { client in
            let rows = try await client.query(
                """
                SELECT instance_hash, context::text, last_seen FROM insight_samples
                WHERE project_id = \(project) AND last_seen >= \(since)
                ORDER BY instance_hash LIMIT \(limit)
                """)
            var samples: [InsightSample] = []
            for try await (hash, context, seen) in rows.decode((Int64, String, Date).self) {
                samples.append(InsightSample(instanceHash: hash, contextJSON: context, lastSeen: seen))
            }
            return samples
        }
    }
}
