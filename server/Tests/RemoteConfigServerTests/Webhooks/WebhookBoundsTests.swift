import Foundation
import PostgresNIO
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// What webhooks keep is bounded: webhooks per project, and the outbox, whose finished deliveries go after 30
/// days (their bodies after 7).
@Suite struct WebhookBoundsTests {
    @Test func aProjectHoldsAtMost25WebhooksAndA26thIsA400NamingTheLimit() async throws {
        try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.allowPrivate) { app in
            try await app.createProject(WebhookFixture.project)
            for index in 0..<25 {
                let reply = try await app.call(
                    .post, WebhookFixture.collection,
                    body: WebhookRequest(url: "https://hooks.example.com/\(index)", events: ["*"]))
                #expect(reply.status == 201, "webhook \(index + 1): \(reply.text)")
            }
            let extra = try await app.call(
                .post, WebhookFixture.collection,
                body: WebhookRequest(url: "https://hooks.example.com/x", events: ["*"]))
            #expect(extra.status == 400, "\(extra.text)")
            #expect(extra.errorStatus == "INVALID_ARGUMENT")
            #expect(extra.errorMessage?.contains("25") == true, "\(extra.text)")
            #expect(extra.errorDetails.first?.reason == "LIMIT_EXCEEDED", "\(extra.text)")
            #expect(try await app.admin.listWebhooks(WebhookFixture.project).webhooks.count == 25)
            // Another project has its own 25.
            try await app.createProject("games-app")
            let other = try await app.call(
                .post, "/v1/projects/games-app/webhooks",
                body: WebhookRequest(url: "https://hooks.example.com/games", events: ["*"]))
            #expect(other.status == 201, "\(other.text)")
        }
    }

    /// Runs `sql` on the session's database.
    static func execute(_ app: TestApp.Session, _ sql: String) async throws {
        try await app.database.run { client in
            for try await _ in try await client.query(PostgresQuery(unsafeSQL: sql)) {}
        }
    }

    /// Whether each delivery still has its body, by delivery id.
    static func bodies(_ app: TestApp.Session) async throws -> [String: Bool] {
        try await app.database.run { client in
            var found: [String: Bool] = [:]
            let rows = try await client.query("SELECT delivery_id, body IS NOT NULL FROM webhook_deliveries")
            for try await (id, has) in rows.decode((String, Bool).self) { found[id] = has }
            return found
        }
    }

    @Test func deliveredAndFailedDeliveriesArePrunedAfter30DaysAndTheirBodiesAfter7() async throws {
        let url = try await TestClusterURL.make()
        try await WebhookReceiver.run { receiver in
            let (id, deliveries) = try await TestApp.run(url: url, configure: WebhookFixture.fast) { app in
                let (id, _) = try await WebhookFixture.setUp(app, url: receiver.url)
                for _ in 0..<4 { try await app.call(.post, "\(WebhookFixture.collection)/\(id):test") }
                let done = try await WebhookFixture.deliveries(app, id) {
                    $0.count == 4 && $0.allSatisfy { $0.state == "DELIVERED" }
                }
                #expect(done.count == 4 && done.allSatisfy { $0.state == "DELIVERED" }, "\(done)")
                // Oldest first: 31 days ago delivered, 31 days ago failed, 8 days ago delivered, and one of now.
                let ids = done.reversed().map(\.id)
                try #require(ids.count == 4)
                let aged = [
                    ("'\(ids[0])'", "31", "DELIVERED"), ("'\(ids[1])'", "31", "FAILED"),
                    ("'\(ids[2])'", "8", "DELIVERED"),
                ]
                for (delivery, days, state) in aged {
                    try await Self.execute(
                        app,
                        """
                        UPDATE webhook_deliveries SET state = '\(state)',
                            created_at = now() - interval '\(days) days', last_attempt_at = now() - interval '\(days) days'
                        WHERE delivery_id = \(delivery)
                        """)
                }
                return (id, ids)
            }
            // A server that starts (and then every so often) clears what is past keeping.
            try await TestApp.run(url: url, configure: WebhookFixture.fast) { app in
                let left = try await WebhookFixture.deliveries(app, id, within: .seconds(10)) { $0.count == 2 }
                #expect(left.map(\.id) == [deliveries[3], deliveries[2]], "\(left)")
                let bodies = try await Self.bodies(app)
                #expect(bodies == [deliveries[2]: false, deliveries[3]: true], "\(bodies)")
                // What is left still shows its outcome.
                #expect(left.allSatisfy { $0.state == "DELIVERED" && $0.attempts == 1 })
            }
        }
    }
}
