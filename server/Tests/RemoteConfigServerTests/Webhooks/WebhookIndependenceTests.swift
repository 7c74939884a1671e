import Foundation
import RemoteConfigAPI
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// Deliveries to different webhooks are independent: receivers that hang (another team's, say) never delay a
/// healthy webhook's delivery, however many of them there are.
@Suite struct WebhookIndependenceTests {
    @Test func hangingReceiversDelayNoOtherWebhook() async throws {
        try await WebhookReceiver.run { slow in
            try await WebhookReceiver.run { healthy in
                try await TestApp.run(
                    url: try await TestClusterURL.make(),
                    configure: { configuration in
                        configuration.webhooks.allowPrivate = true
                        // The real attempt deadline, polled as often as in production.
                        configuration.webhooks.timeout = .seconds(10)
                        configuration.webhooks.pollInterval = .seconds(1)
                    }
                ) { app in
                    // More hanging webhooks than a server claims at once.
                    try await app.createProject("stranger")
                    for index in 0..<20 {
                        _ = try await app.admin.createWebhook(
                            "stranger",
                            WebhookRequest(
                                url: slow.url + "?n=\(index)", events: ["template.published"], format: "JSON",
                                description: "hangs"))
                    }
                    slow.hang(1000)
                    try await app.createProject("shop-app")
                    _ = try await app.admin.createWebhook(
                        "shop-app",
                        WebhookRequest(
                            url: healthy.url, events: ["template.published"], format: "JSON", description: "healthy"))

                    try await app.publish("stranger", WebhookFixture.template(true))
                    let hanging = try await slow.waitFor(16, within: .seconds(10))
                    #expect(hanging.count >= 16, "the strangers' deliveries are in flight, unanswered")

                    let start = ContinuousClock.now
                    #expect(try await app.publish("shop-app", WebhookFixture.template(true)).status == 200)
                    let arrived = try await healthy.waitFor(1, within: .seconds(9))
                    let waited = ContinuousClock.now - start
                    #expect(arrived.count == 1, "the healthy webhook's delivery arrived")
                    #expect(waited < .seconds(2), "it waited \(waited) for the hanging receivers")
                }
            }
        }
    }
}
