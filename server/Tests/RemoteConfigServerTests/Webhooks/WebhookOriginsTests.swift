import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// Every way a version comes to be sends `template.published` (a publish, a rollback, a draft, a scheduled
/// change request, a store sync), and a store sync that fails sends `storeSync.failed`.
@Suite struct WebhookOriginsTests {
    static let project = WebhookFixture.project

    @Test func everyWayToPublishAVersionSendsTemplatePublishedInOrder() async throws {
        try await WebhookReceiver.run { receiver in
            try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.fast) { app in
                _ = try await WebhookFixture.setUp(app, url: receiver.url, events: ["template.published"])
                try await app.publish(Self.project, TemplateFixtures.forceUpdateValue(currentVersion: "2.0.0"))
                try await app.publish(Self.project, TemplateFixtures.forceUpdateValue(currentVersion: "2.1.0"))
                let rollback = try await app.call(
                    .post, "/v1/projects/\(Self.project)/remoteConfig:rollback",
                    body: RollbackRequest(versionNumber: "1"))
                #expect(rollback.status == 200, "\(rollback.text)")

                let draft = "/v1/projects/\(Self.project)/remoteConfig/draft"
                let saved = try await app.call(
                    .put, draft, json: TemplateFixtures.forceUpdateValue(currentVersion: "2.2.0"),
                    headers: [.ifMatch: "*"])
                let published = try await app.call(
                    .post, draft + ":publish", body: PublishDraftRequest(description: "from the draft"),
                    headers: [.ifMatch: try #require(saved.headers[.eTag])])
                #expect(published.status == 200, "\(published.text)")

                try await Workflow.requireApproval(app, true)
                let reviewer = try await app.createKey(role: "editor", project: Self.project)
                let id = try await Workflow.propose(
                    app, currentVersion: "2.3.0", description: "release day", publishTime: Date().addingTimeInterval(1))
                #expect(try await Workflow.act(app, id, "approve", token: reviewer.secret).status == 200)

                let received = try await receiver.waitFor(5)
                #expect(received.count == 5)
                let facts = received.map { $0.value["data"] ?? [:] }
                #expect(received.allSatisfy { $0.value["type"] == "template.published" })
                #expect(facts.map { $0["versionNumber"]?.stringValue } == ["1", "2", "3", "4", "5"])
                #expect(facts.map { $0["previousVersionNumber"]?.stringValue } == ["0", "1", "2", "3", "4"])
                try #require(facts.count == 5)
                #expect(facts[2]["updateType"] == "ROLLBACK")
                #expect(facts[2]["rollbackSource"] == "1")
                #expect(facts[3]["description"] == "from the draft")
                #expect(facts[4]["updateOrigin"] == "CHANGE_REQUEST")
                #expect(facts[4]["description"] == "release day")
            }
        }
    }

    @Test func aStoreSyncSendsWhatItPublishedAndEachFailure() async throws {
        try await WebhookReceiver.run { receiver in
            try await FakeAppStore.run { store in
                try await StoreSyncFixture.shop(store, configure: WebhookFixture.fast) { app, _ in
                    let created = try await app.call(
                        .post, WebhookFixture.collection,
                        body: WebhookRequest(url: receiver.url, events: ["template.published", "storeSync.failed"]))
                    #expect(created.status == 201, "\(created.text)")
                    let slack = try await app.call(
                        .post, WebhookFixture.collection,
                        body: WebhookRequest(url: receiver.url, events: ["storeSync.failed"], format: "SLACK"))
                    #expect(slack.status == 201, "\(slack.text)")
                    #expect(
                        try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link()).status == 200)

                    store.answer(.listing(version: "2.4.0"))
                    #expect(
                        try await app.call(.post, StoreSyncFixture.run).decode(RemoteConfigAPI.StoreLink.self).result
                            == "PUBLISHED")
                    store.answer(.status(503))
                    let failed = try await app.call(.post, StoreSyncFixture.run)
                    #expect(try failed.decode(RemoteConfigAPI.StoreLink.self).result == "FAILED", "\(failed.text)")

                    let all = try await receiver.waitFor(3)
                    let received = all.filter { $0.value["type"] != nil }
                    #expect(
                        received.map { $0.value["type"]?.stringValue } == ["template.published", "storeSync.failed"])
                    let text = all.compactMap { $0.value["text"]?.stringValue }.first ?? ""
                    // The link is disabled (this sync was a `:run`): nothing retries, and no message says it will.
                    #expect(
                        text.hasPrefix(
                            "shop-app: store sync failed (1 in a row; the link is disabled, so nothing retries until it is enabled or run)"
                        ) && text.contains("HTTP 503"), "\(text)")
                    let publishedFacts = received.first?.value["data"]
                    #expect(publishedFacts?["updateOrigin"] == "STORE_SYNC")
                    let failure = received.last?.value["data"]
                    let error = failure?["error"]?.stringValue ?? ""
                    #expect(error.contains("HTTP 503"), "\(error)")
                    #expect(failure?["consecutiveFailures"] == 1)
                    #expect(failure?["appStoreId"] == "123456789")
                    #expect(failure?["nextAttemptTime"] == .null)
                }
            }
        }
    }
}
