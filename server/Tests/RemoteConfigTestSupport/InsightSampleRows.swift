import Foundation
import PostgresNIO
import RemoteConfigCore
import RemoteConfigStore

/// Writes rows of the impact sample directly, as collection would, so a test can model a known fleet.
public enum InsightSampleRows {
    /// Adds one row per context (a fetch body with an `appInstanceId`), last seen at `lastSeen`, ranked by the
    /// database's sample key as a server would rank it (the key made now if no server started on it yet).
    public static func insert(
        _ database: Database, project: String, contexts: [JSONValue], lastSeen: Date = Date()
    ) async throws {
        let key = try await TestSecrets.prepare(database.url).sampleKey
        // The last context of an instance named twice wins, as it would row by row.
        var latest: [Int64: String] = [:]
        for context in contexts {
            latest[SampleHash.of(context["appInstanceId"]?.stringValue ?? "", key: key)] = context.jsonString
        }
        let hashes = Array(latest.keys)
        let texts = hashes.map { latest[$0]! }
        // One statement and one commit for them all: a round trip and a commit per row took seconds for a few
        // hundred rows on a loaded machine, past the database deadline.
        _ = try await database.run { client in
            try await client.query(
                """
                INSERT INTO insight_samples (project_id, instance_hash, context, last_seen)
                SELECT \(project), h, c::jsonb, \(lastSeen) FROM unnest(\(hashes)::bigint[], \(texts)::text[]) AS u (h, c)
                ON CONFLICT (project_id, instance_hash) DO UPDATE SET context = EXCLUDED.context,
                    last_seen = EXCLUDED.last_seen
                """)
        }
    }

    /// `count` contexts of one platform and version, with ids `prefix-0`, `prefix-1`, …
    public static func fleet(_ prefix: String, _ count: Int, platform: String, version: String) -> [JSONValue] {
        (0..<count).map {
            ["appInstanceId": "\(prefix)-\($0)", "platform": .string(platform), "appVersion": .string(version)]
        }
    }

}
