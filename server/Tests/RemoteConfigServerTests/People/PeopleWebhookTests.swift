import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// A webhook names the person behind a change, as the audit log does.
@Suite struct PeopleWebhookTests {
    @Test func aPublishByAPersonNamesThemInTheDelivery() async throws {
        try await WebhookReceiver.run { receiver in
            try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.fast) { app in
                _ = try await WebhookFixture.setUp(app, url: receiver.url, events: ["template.published"])
                _ = try await bind(app, "bob@example.com", "editor", WebhookFixture.project)
                let bob = try await Person.signIn(app, email: "bob@example.com")
                let published = try await bob.call(
                    .put, "/v1/projects/shop-app/remoteConfig", json: WebhookFixture.template(true),
                    headers: [.ifMatch: "*"])
                #expect(published.status == 200, "\(published.text)")
                let delivery = try #require(try await receiver.waitFor(1).first)
                let actor = delivery.value["actor"]
                #expect(actor?["user"]?.stringValue == "users/\(bob.user.id)", "\(delivery.value)")
                #expect(actor?["email"] == "bob@example.com" && actor?["key"] == .null, "\(delivery.value)")
            }
        }
    }
}
