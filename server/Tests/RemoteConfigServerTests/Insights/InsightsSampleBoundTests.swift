import Foundation
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// A server's samples begin where the stored sample stands and follow it at each flush: after a restart no
/// event loop takes a sample's worth of new instances again, two servers do not each keep a full sample, and
/// what is stored is still exactly the smallest hashes of every instance seen.
@Suite struct InsightsSampleBoundTests {
    static let size = 50

    static func configure(_ configuration: inout ServerConfiguration) {
        configuration.insightsSampleSize = size
    }

    /// The stored sample of `project`: its hashes, smallest first.
    static func stored(_ database: Database, _ project: String = "shop-app") async throws -> [Int64] {
        try await database.run { client in
            var hashes: [Int64] = []
            for try await hash in try await client.query(
                "SELECT instance_hash FROM insight_samples WHERE project_id = \(project) ORDER BY instance_hash"
            ).decode(Int64.self) { hashes.append(hash) }
            return hashes
        }
    }

    /// An instance's rank in the sample of `app`'s database (keyed by its sample key).
    static func rank(_ app: TestApp.Session) -> @Sendable (String) -> Int64 {
        let key = app.environment.stores.secrets.sampleKey
        return { SampleHash.of($0, key: key) }
    }

    /// A new instance id whose rank is above (or at most) `bound`.
    static func device(_ prefix: String, above: Bool, _ bound: Int64, _ rank: (String) -> Int64) -> String {
        var index = 0
        while (rank("\(prefix)-\(index)") > bound) != above { index += 1 }
        return "\(prefix)-\(index)"
    }

    /// Creates `shop-app` with the insights template published; returns a client key's secret.
    static func shopApp(_ app: TestApp.Session) async throws -> String {
        try await app.createProject("shop-app")
        let published = try await app.publish("shop-app", InsightsTests.template)
        try SetupFailure.unless(published.status == 200, published.text)
        return try await app.createKey(role: "client", project: "shop-app").secret
    }

    static func fetch(_ app: TestApp.Session, _ key: String, _ devices: [String]) async throws {
        for device in devices {
            let reply = try await ClientCalls.fetch(app, key: key, InsightsTests.body(device, "IOS", "2.1.0"))
            try SetupFailure.unless(reply.status == 200, reply.text)
        }
    }

    @Test func aRestartedServerBeginsAtTheStoredSamplesBound() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let fleet = (0..<400).map { "device-\($0)" }
        let (key, bound) = try await TestApp.run(url: url, configure: Self.configure) { first in
            let key = try await Self.shopApp(first)
            try await Self.fetch(first, key, fleet)
            try await first.environment.flushInsights()
            // The flush taught the server the full stored sample's largest hash.
            let stored = try await Self.stored(first.database)
            #expect(stored == Array(fleet.map(Self.rank(first)).sorted().prefix(Self.size)))
            #expect(first.environment.insightsRecorder.bound(of: "shop-app") == stored.last)
            return (key, try #require(stored.last))
        }
        try await TestApp.run(url: url, configure: Self.configure) { second in
            // Read at start, off the event loops.
            let deadline = ContinuousClock.now + .seconds(20)
            while second.environment.insightsRecorder.bound(of: "shop-app") != bound, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(second.environment.insightsRecorder.bound(of: "shop-app") == bound)
            // A new device above the bound is not held; one below it is, and enters the stored sample.
            let rank = Self.rank(second)
            let above = Self.device("new", above: true, bound, rank)
            let below = Self.device("new", above: false, bound, rank)
            try await Self.fetch(second, key, [above, below])
            let held = second.environment.insightsRecorder.takenBatch()
            #expect(held.samples["shop-app"].map { Set($0.entries.keys) } == [rank(below)])
            try await second.environment.stores.insights.add(held, sampleSize: Self.size)
            let expected = Array((fleet + [above, below]).map(rank).sorted().prefix(Self.size))
            #expect(try await Self.stored(second.database) == expected)
        }
    }

    @Test func theSampleFillsAgainAfterTheRetentionDeletesItsInstances() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        try await TestApp.run(url: url, configure: Self.configure) { app in
            let key = try await Self.shopApp(app)
            try await Self.fetch(app, key, (0..<200).map { "old-\($0)" })
            try await app.environment.flushInsights()
            try SetupFailure.unless(try await Self.stored(app.database).count == Self.size, "the sample did not fill")
            // Three days on, with a one-day retention: every stored instance is one not seen since.
            try await app.environment.stores.insights.maintain(
                retentionDays: 1, now: Date().addingTimeInterval(3 * 86_400))
            #expect(try await Self.stored(app.database).isEmpty)
            // The next flush finds the stored sample no longer full, and the server takes every instance again.
            try await app.environment.flushInsights()
            #expect(app.environment.insightsRecorder.bound(of: "shop-app") == .max)
            let late = (0..<200).map { "late-\($0)" }
            try await Self.fetch(app, key, late)
            try await app.environment.flushInsights()
            #expect(try await Self.stored(app.database) == Array(late.map(Self.rank(app)).sorted().prefix(Self.size)))
        }
    }

    @Test func twoServersFollowTheMergedBoundAndStoreTheSameSample() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        try await TestApp.run(url: url, configure: Self.configure) { first in
            let key = try await Self.shopApp(first)
            try await TestApp.run(url: url, configure: Self.configure) { second in
                var seen: [String] = []
                for round in 0..<3 {
                    let devices = (0..<300).map { "round\(round)-\($0)" }
                    seen += devices
                    try await Self.fetch(first, key, devices.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
                    try await Self.fetch(second, key, devices.enumerated().filter { $0.offset % 2 == 1 }.map(\.element))
                    async let one: Void = first.environment.flushInsights()
                    async let two: Void = second.environment.flushInsights()
                    _ = try await (one, two)
                    // Exactly the smallest of every instance either server saw, as without the bounds.
                    let stored = try await Self.stored(first.database)
                    #expect(stored == Array(seen.map(Self.rank(first)).sorted().prefix(Self.size)))
                    // Each server's bound is one the stored sample had after its flush: never below what
                    // is stored (nothing that belongs is turned away).
                    let last = try #require(stored.last)
                    #expect(first.environment.insightsRecorder.bound(of: "shop-app") >= last)
                    #expect(second.environment.insightsRecorder.bound(of: "shop-app") >= last)
                }
                // The later of two flushes saw the merged sample; the other learns it at its next flush, even
                // with nothing new to write.
                try await first.environment.flushInsights()
                try await second.environment.flushInsights()
                let bound = try #require(try await Self.stored(first.database).last)
                #expect(first.environment.insightsRecorder.bound(of: "shop-app") == bound)
                #expect(second.environment.insightsRecorder.bound(of: "shop-app") == bound)
            }
        }
    }
}
