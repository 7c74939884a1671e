import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// A server SIGKILLed while a delivery is in flight: another server sends it again, under the same id, once
/// the dead server's 30-second lease has run out.
@Suite struct WebhookCrashTests {
    static let token = "rc_admin_webhookCrashTests00000000000000"

    static func start(_ url: DatabaseURL) async throws -> (ServerProcess, String) {
        let server = try ServerProcess(
            ["serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url), "--webhooks-allow-private"],
            environment: ["RC_ADMIN_TOKEN": token])
        return (server, "http://127.0.0.1:\(try await server.waitUntilListening())")
    }

    static func call(_ method: String, _ url: String, _ body: Data, ifMatch: String? = nil) async throws
        -> HTTP.Reply
    {
        var headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        if let ifMatch { headers["If-Match"] = ifMatch }
        return try await HTTP.request(method, url, headers: headers, body: body)
    }

    @Test func aDeliveryInFlightWhenItsServerIsKilledArrivesAfterwardsWithTheSameId() async throws {
        try await WebhookReceiver.run { receiver in
            let url = try await TestCluster.shared.makeDatabase()
            let (first, base) = try await Self.start(url)
            defer { Task { await first.stop() } }
            #expect(
                try await Self.call(
                    "POST", base + "/v1/projects", try HTTP.encoded(CreateProjectRequest(projectId: "shop-app"))
                ).status == 201)
            let created = try await Self.call(
                "POST", base + "/v1/projects/shop-app/webhooks",
                try HTTP.encoded(WebhookRequest(url: receiver.url, events: ["template.published"])))
            #expect(created.status == 201)
            receiver.hang(1)
            let published = try await Self.call(
                "PUT", base + "/v1/projects/shop-app/remoteConfig", HTTP.json(WebhookFixture.template(true)),
                ifMatch: "*")
            #expect(published.status == 200)
            // The first server is sending it now: kill it mid-delivery.
            let inFlight = try await receiver.waitFor(1)
            try #require(inFlight.count == 1)
            first.signal(SIGKILL)

            let (second, _) = try await Self.start(url)
            defer { Task { await second.stop() } }
            let both = try await receiver.waitFor(2, within: .seconds(60))
            try #require(both.count == 2)
            #expect(both[0].headers["RC-Webhook-Id"] == both[1].headers["RC-Webhook-Id"])
            #expect(both[0].body == both[1].body)
            #expect(both[1].value["data"]?["versionNumber"] == "1")
        }
    }
}
