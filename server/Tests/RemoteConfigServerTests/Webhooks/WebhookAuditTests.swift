import Foundation
import PostgresNIO
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// The audit log, which viewers read, says what happened to a webhook without its URL's secret part (for Slack
/// the path is the credential), and records tests, redeliveries and what an update changed.
@Suite struct WebhookAuditTests {
    static let slackURL = "https://hooks.slack.com/services/T0001/B0002/s3cr3tTok3n?x=1"

    /// The project's audit log as a viewer reads it, oldest first.
    static func events(_ app: TestApp.Session, viewer: String) async throws -> [JSONValue] {
        let reply = try await app.call(.get, "/v1/projects/shop-app/auditLog?pageSize=100", token: viewer)
        #expect(reply.status == 200, "\(reply.text)")
        return (reply.value["events"]?.arrayValue ?? []).reversed()
    }

    @Test func viewersSeeWebhookURLsAsSchemeAndHostWhatAnUpdateChangedAndEveryTestAndRedelivery() async throws {
        try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.allowPrivate) { app in
            try await app.createProject(WebhookFixture.project)
            let viewer = try await app.createKey(role: "viewer", project: WebhookFixture.project)
            let created = try await app.admin.createWebhook(
                WebhookFixture.project,
                WebhookRequest(url: Self.slackURL, events: ["template.published"], format: "SLACK"))
            let path = "\(WebhookFixture.collection)/\(created.id)"
            let patched = try await app.call(
                .patch, path,
                body: WebhookRequest(url: "https://hooks.slack.com/services/T0001/B0002/n3wT0k3n", enabled: false))
            #expect(patched.status == 200, "\(patched.text)")
            let test = try await app.call(.post, path + ":test")
            #expect(test.status == 200, "\(test.text)")
            let delivery = try #require(test.value["id"]?.stringValue)
            let again = try await app.call(.post, path + "/deliveries/\(delivery):redeliver")
            #expect(again.status == 200, "\(again.text)")

            let events = try await Self.events(app, viewer: viewer.secret)
            let log = events.map(\.jsonString).joined(separator: "\n")
            #expect(!log.contains("s3cr3tTok3n") && !log.contains("n3wT0k3n") && !log.contains("/services/"), "\(log)")
            let webhookEvents = events.filter { $0["action"]?.stringValue?.hasPrefix("webhook.") == true }
            #expect(
                webhookEvents.map { $0["action"]?.stringValue } == [
                    "webhook.create", "webhook.update", "webhook.test", "webhook.redeliver",
                ], "\(log)")
            try #require(webhookEvents.count == 4)
            let name = JSONValue.string("webhooks/\(created.id)")
            #expect(webhookEvents[0]["detail"]?["url"] == "https://hooks.slack.com", "\(log)")
            #expect(webhookEvents[0]["detail"]?["webhook"] == name)
            let update = webhookEvents[1]["detail"]
            #expect(update?["webhook"] == name)
            #expect(update?["url"] == "https://hooks.slack.com", "\(log)")
            #expect(update?["enabled"] == "false", "\(log)")
            // What did not change is not said to have.
            #expect(update?["events"] == nil && update?["format"] == nil, "\(log)")
            #expect(webhookEvents[2]["detail"]?["webhook"] == name)
            #expect(webhookEvents[2]["detail"]?["delivery"] == .string(delivery))
            #expect(webhookEvents[3]["detail"]?["delivery"] == .string(delivery))
        }
    }

    /// Entries recorded before the URL was redacted are redacted by migration 012, as it runs at start.
    @Test func migration012RedactsTheURLsOfEarlierEntries() async throws {
        try await TestApp.run { app in
            try await app.createProject(WebhookFixture.project)
            let migration = try #require(try Migration.bundled().first { $0.name.hasPrefix("012_") })
            try await app.database.run { client in
                for url in [Self.slackURL, "http://[fd00::1]:8080/rc?token=x", "https://hooks.example.com"] {
                    let detail = "{\"url\": \"\(url)\", \"webhook\": \"webhooks/old\"}"
                    try await client.query(
                        """
                        INSERT INTO audit_events (project_id, actor, action, detail)
                        VALUES ('shop-app', 'before', 'webhook.create', \(detail)::json)
                        """
                    ).drain()
                }
                // The migration's last statement, run again now that there are entries for it to redact.
                let start = try #require(migration.sql.range(of: "UPDATE audit_events"))
                let redaction = migration.sql[start.lowerBound...].trimmingCharacters(in: .whitespacesAndNewlines)
                try await client.query(PostgresQuery(unsafeSQL: String(redaction.dropLast()))).drain()
            }
            let events = try await Self.events(app, viewer: TestApp.adminToken).filter {
                $0["action"] == "webhook.create"
            }
            #expect(
                events.compactMap { $0["detail"]?["url"]?.stringValue } == [
                    "https://hooks.slack.com", "http://[fd00::1]", "https://hooks.example.com",
                ], "\(events)")
            #expect(events.allSatisfy { $0["detail"]?["webhook"] == "webhooks/old" })
        }
    }
}
