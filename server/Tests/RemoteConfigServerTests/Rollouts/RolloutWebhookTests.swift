import Foundation
import PostgresNIO
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// `rollout.started`, `rollout.halted` and `rollout.completed` reach webhooks, recorded in the transaction of
/// the change they report; a refused rollout records nothing.
@Suite struct RolloutWebhookTests {
    /// The event types in `shop-app`'s outbox, oldest first, with their data.
    static func outbox(_ app: TestApp.Session) async throws -> [(String, JSONValue)] {
        try await app.database.run { client in
            var events: [(String, String)] = []
            let rows = try await client.query(
                "SELECT event_type, data::text FROM webhook_deliveries WHERE project_id = 'shop-app' ORDER BY seq")
            for try await row in rows.decode((String, String).self) { events.append(row) }
            return events
        }.map { ($0.0, try JSONValue(parsing: Array($0.1.utf8))) }
    }

    @Test func startedHaltedAndCompletedGoToWebhooks() async throws {
        try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.allowPrivate) { app in
            _ = try await RolloutFixture.setUp(app)
            let hook = try await app.call(
                .post, "/v1/projects/shop-app/webhooks",
                body: WebhookRequest(
                    url: "http://127.0.0.1:9/hook", events: ["rollout.started", "rollout.halted", "rollout.completed"]))
            #expect(hook.status == 201)
            #expect(try await RolloutFixture.create(app, steps: [.init(percent: 0)]).status == 400)
            #expect(try await Self.outbox(app).isEmpty, "a refused rollout reports nothing")

            let first = try await RolloutFixture.start(
                app, steps: [.init(percent: 10, holdSeconds: 3600), .init(percent: 100)])
            #expect(try await RolloutFixture.act(app, first, "halt").status == 200)
            let second = try await RolloutFixture.start(app, steps: [.init(percent: 10)])
            #expect(try await RolloutFixture.act(app, second, "complete").status == 200)

            let events = try await Self.outbox(app)
            #expect(events.map(\.0) == ["rollout.started", "rollout.halted", "rollout.started", "rollout.completed"])
            #expect(events.first?.1["rollout"]?.stringValue == first.name)
            #expect(events.first?.1["versionNumber"]?.stringValue == "2")
            #expect(events[1].1["state"]?.stringValue == "HALTED")
            #expect(events[1].1["versionNumber"]?.stringValue == "3")
            #expect(events[3].1["parameter"]?.stringValue == "new_checkout")
        }
    }
}
