import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// What each change sends: change request events, the Slack format, and the guards at delivery.
@Suite struct WebhookEventsTests {
    @Test func changeRequestsSendOpenedApprovedPublishedAndCancelledInOrder() async throws {
        try await WebhookReceiver.run { receiver in
            try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.fast) { app in
                _ = try await WebhookFixture.setUp(app, url: receiver.url)
                try await Workflow.requireApproval(app, true)
                let reviewer = try await app.createKey(role: "editor", project: WebhookFixture.project)
                let first = try await Workflow.propose(app, description: "raise the version")
                #expect(try await Workflow.act(app, first, "approve", token: reviewer.secret).status == 200)
                #expect(try await Workflow.act(app, first, "publish").status == 200)
                let second = try await Workflow.propose(app, currentVersion: "4.0.0")
                #expect(try await Workflow.act(app, second, "reject", json: ["comment": "not yet"]).status == 200)
                let third = try await Workflow.propose(app, currentVersion: "5.0.0")
                #expect(try await Workflow.act(app, third, "cancel").status == 200)
                let received = try await receiver.waitFor(7)
                #expect(
                    received.map { $0.value["type"]?.stringValue ?? "" } == [
                        "changeRequest.opened", "changeRequest.approved", "template.published",
                        "changeRequest.opened", "changeRequest.rejected", "changeRequest.opened",
                        "changeRequest.cancelled",
                    ])
                let opened = try #require(received.first?.value["data"]?.objectValue)
                #expect(opened["changeRequest"] == .string("changeRequests/\(first)"))
                #expect(opened["description"] == "raise the version")
                let published = received[2].value["data"]
                #expect(published?["updateOrigin"] == "CHANGE_REQUEST")
                let rejected = received[4].value["data"]
                #expect(rejected?["comment"] == "not yet")
                #expect(rejected?["state"] == "REJECTED")
            }
        }
    }

    @Test func aSlackWebhookSaysWhoChangedWhichValueFromWhatToWhatWithAConsoleLink() async throws {
        try await WebhookReceiver.run { receiver in
            let configure: (inout ServerConfiguration) -> Void = { configuration in
                WebhookFixture.fast(&configuration)
                configuration.webhooks.publicURL = "https://rc.example.com"
            }
            try await TestApp.run(url: try await TestClusterURL.make(), configure: configure) { app in
                _ = try await WebhookFixture.setUp(
                    app, url: receiver.url, events: ["template.published"], format: "SLACK")
                let bot = try await app.call(
                    .post, "/v1/apiKeys",
                    body: CreateAPIKeyRequest(displayName: "ci-bot", role: "editor", project: "shop-app"))
                let token = try #require(try bot.decode(APIKey.self).key)
                for value in [false, true] {
                    let reply = try await app.call(
                        .put, "/v1/projects/shop-app/remoteConfig", token: token,
                        json: WebhookFixture.template(value, when: true), headers: [.ifMatch: "*"])
                    #expect(reply.status == 200, "\(reply.text)")
                }
                let received = try await receiver.waitFor(2)
                try #require(received.count == 2)
                let message = received[1].value
                let text = try #require(message["text"]?.stringValue)
                #expect(text.contains("shop-app: version 2 published by ci-bot"), "\(text)")
                #expect(text.contains("require_force_update: false → true when ios_too_old"), "\(text)")
                #expect(text.contains("https://rc.example.com/console"), "\(text)")
                let blocks = try #require(message["blocks"]?.arrayValue)
                #expect(blocks.first?["type"] == "section")
                // Signed like every delivery.
                #expect(WebhookFixture.signatures(received[1]).count == 1)
            }
        }
    }

    /// Created while private destinations were allowed, then delivered by a server without the flag: the
    /// resolved address is checked again, and nothing is sent.
    @Test func withoutTheFlagADeliveryToALoopbackAddressIsRefusedAtDelivery() async throws {
        let url = try await TestClusterURL.make()
        try await WebhookReceiver.run { receiver in
            let id = try await TestApp.run(url: url, configure: WebhookFixture.allowPrivate) { app in
                try await WebhookFixture.setUp(app, url: receiver.url).id
            }
            let strict: (inout ServerConfiguration) -> Void = { configuration in
                WebhookFixture.fast(&configuration)
                configuration.webhooks.allowPrivate = false
            }
            try await TestApp.run(url: url, configure: strict) { app in
                try await app.publish(WebhookFixture.project, WebhookFixture.template(true))
                let deliveries = try await WebhookFixture.deliveries(app, id) {
                    ($0.first?.attempts ?? 0) >= 1
                }
                let error = deliveries.first?.lastError ?? ""
                #expect(error.contains("refused") && error.contains("loopback"), "\(error)")
                #expect(deliveries.first?.state == "PENDING")
                #expect(receiver.received.isEmpty)
            }
        }
    }

    @Test func aRedirectIsNotFollowedAndCountsAsAFailedAttempt() async throws {
        try await WebhookReceiver.run { receiver in
            try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.fast) { app in
                let (id, _) = try await WebhookFixture.setUp(app, url: receiver.url)
                receiver.answer([302])
                try await app.call(.post, "\(WebhookFixture.collection)/\(id):test")
                let deliveries = try await WebhookFixture.deliveries(app, id) {
                    $0.first?.state == "DELIVERED"
                }
                #expect(deliveries.first?.attempts == 2)
                #expect(receiver.received.count == 2)
                #expect(receiver.received.allSatisfy { $0.path == "/hook" })
            }
        }
    }

    /// A receiver that does not answer within the attempt's deadline (10 s, shortened here) has failed that
    /// attempt; the retry is delivered.
    @Test func anUnansweredAttemptTimesOutAndIsRetried() async throws {
        try await WebhookReceiver.run { receiver in
            let configure: (inout ServerConfiguration) -> Void = { configuration in
                WebhookFixture.fast(&configuration)
                configuration.webhooks.timeout = .milliseconds(500)
            }
            try await TestApp.run(url: try await TestClusterURL.make(), configure: configure) { app in
                let (id, _) = try await WebhookFixture.setUp(app, url: receiver.url)
                receiver.hang(1)
                try await app.call(.post, "\(WebhookFixture.collection)/\(id):test")
                let deliveries = try await WebhookFixture.deliveries(app, id) {
                    $0.first?.state == "DELIVERED"
                }
                #expect(deliveries.first?.attempts == 2)
                #expect(receiver.received.count == 2)
            }
        }
    }

    /// An answer is read up to 64 KiB: a 200 whose body never ends is a delivery, not an attempt that waits
    /// until its deadline.
    @Test func anAnswerIsReadOnlyUpTo64KiB() async throws {
        try await WebhookReceiver.run { receiver in
            let configure: (inout ServerConfiguration) -> Void = { configuration in
                WebhookFixture.fast(&configuration)
                configuration.webhooks.timeout = .seconds(3)
            }
            try await TestApp.run(url: try await TestClusterURL.make(), configure: configure) { app in
                let (id, _) = try await WebhookFixture.setUp(app, url: receiver.url)
                receiver.answerEndlessly()
                let start = ContinuousClock.now
                try await app.call(.post, "\(WebhookFixture.collection)/\(id):test")
                let deliveries = try await WebhookFixture.deliveries(app, id) {
                    $0.first?.state == "DELIVERED"
                }
                #expect(deliveries.first?.state == "DELIVERED")
                #expect(deliveries.first?.attempts == 1)
                #expect(deliveries.first?.lastStatus == 200)
                #expect(ContinuousClock.now - start < .seconds(3))
            }
        }
    }
}
