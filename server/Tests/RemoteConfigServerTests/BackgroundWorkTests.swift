import Foundation
import PostgresNIO
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// The one shape of background worker: woken by the database's NOTIFY where work arrives, backing off when its
/// round fails, and the insights flush that keeps what it could not write for the next one.
@Suite struct BackgroundWorkTests {
    @Test func aFailingRoundBacksOffUpToTheInterval() {
        let interval = Duration.seconds(5)
        let pauses = (1...8).map { Worker<InsightsFlush>.backOff(failures: $0, interval: interval) }
        #expect(pauses.prefix(5) == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4)])
        #expect(pauses.suffix(3).allSatisfy { $0 == interval })
        #expect(Worker<InsightsFlush>.backOff(failures: 1000, interval: interval) == interval)
    }

    @Test func aQueuedDeliveryIsSentLongBeforeTheNextPoll() async throws {
        try await WebhookReceiver.run { receiver in
            let slowPoll: (inout ServerConfiguration) -> Void = {
                WebhookFixture.fast(&$0)
                $0.webhooks.pollInterval = .seconds(60)
            }
            try await TestApp.run(url: try await TestClusterURL.make(), configure: slowPoll) { app in
                _ = try await WebhookFixture.setUp(app, url: receiver.url, events: ["template.published"])
                // Past the deliverer's first round, so only a wake-up can make it look again within the minute.
                try await Task.sleep(for: .milliseconds(300))
                let start = ContinuousClock.now
                #expect(try await app.publish(WebhookFixture.project, WebhookFixture.template(true)).status == 200)
                let received = try await receiver.waitFor(1, within: .seconds(10))
                #expect(received.count == 1)
                #expect(ContinuousClock.now - start < .seconds(10))
            }
        }
    }

    @Test func aFlushThatCannotWriteKeepsItsCountsForTheNext() async throws {
        try await InsightsTests.withShop { app, key in
            for index in 0..<3 {
                let body = InsightsTests.body("device-\(index)", "IOS", "1.9.0")
                #expect(try await ClientCalls.fetch(app, key: key, body).status == 200)
            }
            // The table the counts go to is away: the flush fails and writes nothing.
            try await app.database.run { client in
                _ = try await client.query("ALTER TABLE insight_versions_hourly RENAME TO insight_versions_away")
            }
            await #expect(throws: (any Error).self) { try await app.environment.flushInsights() }
            try await app.database.run { client in
                _ = try await client.query("ALTER TABLE insight_versions_away RENAME TO insight_versions_hourly")
            }
            // One more device, then the next flush writes both.
            #expect(
                try await ClientCalls.fetch(app, key: key, InsightsTests.body("device-3", "IOS", "1.9.0")).status
                    == 200)
            try await app.environment.flushInsights()
            let versions = try await app.call(.get, "/v1/projects/shop-app/insights/versions")
            let report = try JSONDecoder().decode(InsightsVersionsReport.self, from: versions.body)
            let ios = try #require(report.platforms.first { $0.platform == "IOS" }, "\(versions.text)")
            #expect(ios.answers == 4)
            #expect(ios.activeInstances == 4)
        }
    }
}
