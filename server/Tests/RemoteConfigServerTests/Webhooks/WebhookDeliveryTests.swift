import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// Deliveries to a real HTTP receiver on loopback: signed, in the contract's shape, retried, once.
@Suite struct WebhookDeliveryTests {
    @Test func aPublishReachesTheReceiverSignedWithTheDiffAndTheActor() async throws {
        try await WebhookReceiver.run { receiver in
            try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.fast) { app in
                let (_, secret) = try await WebhookFixture.setUp(app, url: receiver.url, events: ["template.published"])
                #expect(try await app.publish(WebhookFixture.project, WebhookFixture.template(false)).status == 200)
                #expect(
                    try await app.publish(WebhookFixture.project, WebhookFixture.template(true, when: true)).status
                        == 200)
                let received = try await receiver.waitFor(2)
                try #require(received.count == 2)
                for request in received {
                    #expect(request.headers["Content-Type"] == "application/json")
                    let signatures = WebhookFixture.signatures(request)
                    #expect(signatures == [WebhookFixture.expectedSignature(request, secret: secret)])
                    let timestamp = Double(request.headers["RC-Webhook-Timestamp"] ?? "") ?? 0
                    #expect(abs(timestamp - Date().timeIntervalSince1970) < 60)
                    #expect(request.headers["RC-Webhook-Id"] == request.value["id"]?.stringValue)
                }
                let body = received[1].value
                #expect(body["type"] == "template.published")
                #expect(body["project"] == .string(WebhookFixture.project))
                #expect(body["time"]?.stringValue != nil)
                let actor = try #require(body["actor"]?.objectValue)
                #expect(actor["key"]?.stringValue?.hasPrefix("apiKeys/") == true)
                #expect(actor["displayName"]?.stringValue != nil)
                let data = try #require(body["data"])
                #expect(data["versionNumber"] == "2")
                #expect(data["previousVersionNumber"] == "1")
                #expect(data["updateType"] == "FORCED_UPDATE")
                #expect(data["updateOrigin"] == "REST_API")
                // The diff is `remoteConfig:diff`'s answer for the same two versions.
                let diff = try #require(data["diff"])
                let served = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:diff?from=1&to=2").value
                #expect(diff == served)
                #expect(received[0].value["id"]?.stringValue != nil)
                #expect(received[0].value["id"] != body["id"])
            }
        }
    }

    @Test func afterARotationBothSecretsSignAndEachVerifies() async throws {
        try await WebhookReceiver.run { receiver in
            try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.fast) { app in
                let (id, old) = try await WebhookFixture.setUp(app, url: receiver.url)
                let new = try #require(try await app.admin.rotateWebhookSecret(WebhookFixture.project, id).secret)
                let test = try await app.call(.post, "\(WebhookFixture.collection)/\(id):test")
                #expect(test.status == 200, "\(test.text)")
                let received = try await receiver.waitFor(1)
                let ping = try #require(received.first)
                #expect(ping.value["type"] == "ping")
                let signatures = WebhookFixture.signatures(ping)
                #expect(signatures.count == 2)
                #expect(signatures.contains(WebhookFixture.expectedSignature(ping, secret: new)))
                #expect(signatures.contains(WebhookFixture.expectedSignature(ping, secret: old)))
                #expect(!signatures.contains(WebhookFixture.expectedSignature(ping, secret: "whsec_wrong")))
            }
        }
    }

    @Test func aReceiverThatFailsTwiceThenAcceptsGetsTheSameDeliveryThreeTimes() async throws {
        try await WebhookReceiver.run { receiver in
            try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.fast) { app in
                let (id, _) = try await WebhookFixture.setUp(app, url: receiver.url)
                receiver.answer([500, 503])
                try await app.publish(WebhookFixture.project, WebhookFixture.template(true))
                let received = try await receiver.waitFor(3)
                try #require(received.count == 3)
                #expect(Set(received.map { $0.headers["RC-Webhook-Id"] ?? "" }).count == 1)
                // The same bytes every time, only the timestamp (and so the signature) is new.
                #expect(Set(received.map(\.body)).count == 1)
                let deliveries = try await WebhookFixture.deliveries(app, id) {
                    $0.first?.state == "DELIVERED"
                }
                let delivery = try #require(deliveries.first)
                #expect(delivery.state == "DELIVERED")
                #expect(delivery.attempts == 3)
                #expect(delivery.lastStatus == 204)
                #expect(delivery.id == received[0].headers["RC-Webhook-Id"])
                // Retried after about 10 s and 30 s, scaled by 0.01 here.
                try await Task.sleep(for: .milliseconds(300))
                #expect(receiver.received.count == 3)
            }
        }
    }

    @Test func aDeliveryCanBeSentAgainUnderItsId() async throws {
        try await WebhookReceiver.run { receiver in
            try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.fast) { app in
                let (id, _) = try await WebhookFixture.setUp(app, url: receiver.url)
                try await app.call(.post, "\(WebhookFixture.collection)/\(id):test")
                let first = try await receiver.waitFor(1)
                let delivery = try #require(first.first?.headers["RC-Webhook-Id"])
                _ = try await WebhookFixture.deliveries(app, id) { $0.first?.state == "DELIVERED" }
                let again = try await app.call(
                    .post, "\(WebhookFixture.collection)/\(id)/deliveries/\(delivery):redeliver")
                #expect(again.status == 200, "\(again.text)")
                let both = try await receiver.waitFor(2)
                #expect(both.map { $0.headers["RC-Webhook-Id"] } == [delivery, delivery])
                let missing = try await app.call(
                    .post, "\(WebhookFixture.collection)/\(id)/deliveries/nope:redeliver")
                #expect(missing.status == 404)
            }
        }
    }

    /// A failing webhook holds back its own later events (order) and no other webhook's.
    @Test func aFailingWebhookDelaysNoOtherAndKeepsItsOwnOrder() async throws {
        try await WebhookReceiver.run { failing in
            try await WebhookReceiver.run { healthy in
                try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.fast) { app in
                    _ = try await WebhookFixture.setUp(app, url: failing.url, events: ["template.published"])
                    let other = try await app.call(
                        .post, WebhookFixture.collection,
                        body: WebhookRequest(url: healthy.url, events: ["template.published"]))
                    #expect(other.status == 201)
                    failing.answer([500, 500, 500])
                    for value in [true, false, true] {
                        try await app.publish(WebhookFixture.project, WebhookFixture.template(value))
                    }
                    let fine = try await healthy.waitFor(3)
                    #expect(fine.map { $0.value["data"]?["versionNumber"]?.stringValue } == ["1", "2", "3"])
                    let late = try await failing.waitFor(6)
                    let versions = late.map { $0.value["data"]?["versionNumber"]?.stringValue ?? "" }
                    #expect(versions == ["1", "1", "1", "1", "2", "3"])
                }
            }
        }
    }

    @Test func twoServersOnOneDatabaseDeliverTenEventsExactlyOnceEachInOrder() async throws {
        let url = try await TestClusterURL.make()
        try await WebhookReceiver.run { receiver in
            try await TestApp.run(url: url, configure: WebhookFixture.fast) { one in
                try await TestApp.run(url: url, configure: WebhookFixture.fast) { two in
                    _ = try await WebhookFixture.setUp(one, url: receiver.url, events: ["template.published"])
                    for index in 0..<10 {
                        let app = index.isMultiple(of: 2) ? one : two
                        #expect(
                            try await app.publish(WebhookFixture.project, WebhookFixture.template(index % 3 == 0))
                                .status == 200)
                    }
                    let received = try await receiver.waitFor(10)
                    // Time for a duplicate to show up, if there were one.
                    try await Task.sleep(for: .milliseconds(500))
                    let all = receiver.received
                    #expect(all.count == 10)
                    #expect(Set(all.map { $0.headers["RC-Webhook-Id"] ?? "" }).count == 10)
                    let versions = received.map { $0.value["data"]?["versionNumber"]?.stringValue ?? "" }
                    #expect(versions == (1...10).map(String.init))
                }
            }
        }
    }

    /// Publishing commits and answers; the delivery follows from the outbox, so a receiver that hangs slows no
    /// publish.
    @Test func aHangingReceiverSlowsNoPublish() async throws {
        try await WebhookReceiver.run { receiver in
            try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.fast) { app in
                _ = try await WebhookFixture.setUp(app, url: receiver.url, events: ["template.published"])
                receiver.hang(3)
                try await app.publish(WebhookFixture.project, WebhookFixture.template(false))
                try await receiver.waitFor(1)
                // The first delivery is in flight and unanswered: the next publishes answer at once.
                let start = ContinuousClock.now
                for value in [true, false] {
                    #expect(try await app.publish(WebhookFixture.project, WebhookFixture.template(value)).status == 200)
                }
                #expect(ContinuousClock.now - start < .seconds(2))
                let fetched = try await app.call(.get, "/v1/projects/shop-app/remoteConfig")
                #expect(fetched.value["version"]?["versionNumber"] == "3")
            }
        }
    }
}
