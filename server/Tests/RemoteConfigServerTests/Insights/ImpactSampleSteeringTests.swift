import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// Nobody outside can choose who is in the impact sample: instance ids picked offline for the smallest public
/// hash, the one the distinct-instance sketches use, are sampled like any others.
@Suite struct ImpactSampleSteeringTests {
    static let size = 100

    static func configure(_ configuration: inout ServerConfiguration) {
        configuration.insightsSampleSize = size
    }

    /// The `count` ids of `pool` candidates with the smallest unkeyed hash: what someone who can compute the
    /// sketches' hash would send to fill the sample.
    static func chosenIDs(_ count: Int, pool: Int) -> [String] {
        (0..<pool).map { "chosen-\($0)" }
            .map { (Int64(bitPattern: InstanceHash.of($0)), $0) }
            .sorted { $0.0 < $1.0 }.prefix(count).map(\.1)
    }

    /// The instance ids the stored sample of `shop-app` holds.
    static func sampledIDs(_ database: Database) async throws -> [String] {
        try await database.run { client in
            var ids: [String] = []
            for try await id in try await client.query(
                "SELECT context->>'appInstanceId' FROM insight_samples WHERE project_id = 'shop-app'"
            ).decode(String.self) { ids.append(id) }
            return ids
        }
    }

    @Test func idsChosenForTheSmallestUnkeyedHashAreSampledAtTheRandomRate() async throws {
        let chosen = Self.chosenIDs(200, pool: 100_000)
        let random = (0..<800).map { _ in UUID().uuidString.lowercased() }
        try await InsightsTests.withShop(configure: Self.configure) { app, key in
            // Interleaved, as a fleet and someone among it would fetch.
            for id in (chosen + random).shuffled() {
                let reply = try await ClientCalls.fetch(app, key: key, InsightsTests.body(id, "IOS", "2.1.0"))
                try SetupFailure.unless(reply.status == 200, reply.text)
            }
            try await app.environment.flushInsights()
            let sampled = try await Self.sampledIDs(app.database)
            #expect(sampled.count == Self.size)
            let taken = Set(sampled).intersection(chosen).count
            // 100 of 1,000 instances: each is sampled at 10%, the chosen 200 too (about 20 of them, ±4). With
            // the public hash they took every place of the sample.
            let chosenRate = Double(taken) / Double(chosen.count)
            let randomRate = Double(sampled.count - taken) / Double(random.count)
            #expect((5...40).contains(taken), "chosen \(chosenRate), random \(randomRate)")
        }
    }

    @Test func aSampleStoredUnderThePublicHashIsRankedAgainAtTheFirstStart() async throws {
        let url = try await TestClusterURL.make()
        let ids = (0..<30).map { "before-\($0)" }
        // As the release before stored it, with one instance twice (under the hash of a release before that),
        // its older context seen a day earlier.
        let values =
            ids.map { id in
                "('shop-app', \(Int64(bitPattern: InstanceHash.of(id))), '{\"appInstanceId\": \"\(id)\", "
                    + "\"platform\": \"IOS\", \"appVersion\": \"2.1.0\"}', now())"
            } + [
                "('shop-app', 12345, '{\"appInstanceId\": \"before-0\", \"platform\": \"IOS\", "
                    + "\"appVersion\": \"1.0.0\"}', now() - interval '1 day')"
            ]
        try await SecretsAtRestTests.execute(
            url,
            [
                "INSERT INTO projects (project_id) VALUES ('shop-app')",
                "INSERT INTO insight_samples (project_id, instance_hash, context, last_seen) VALUES "
                    + values.joined(separator: ", "),
            ])
        try await TestApp.run(url: url) { app in
            let stored = try await app.database.run { client in
                var found: [(id: String, hash: Int64, version: String)] = []
                for try await (hash, id, version) in try await client.query(
                    "SELECT instance_hash, context->>'appInstanceId', context->>'appVersion' FROM insight_samples"
                ).decode((Int64, String, String).self) { found.append((id, hash, version)) }
                return found
            }
            // Every instance kept once, with its newest context, none at its public place.
            #expect(stored.count == 30 && Set(stored.map(\.id)) == Set(ids))
            #expect(stored.first { $0.id == "before-0" }?.version == "2.1.0")
            for (id, hash, _) in stored {
                #expect(hash != Int64(bitPattern: InstanceHash.of(id)), "\(id) kept its public hash")
                #expect(hash == SampleHash.of(id, key: app.environment.stores.secrets.sampleKey))
            }
        }
    }
}
