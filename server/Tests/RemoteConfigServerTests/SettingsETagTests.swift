import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// Store links and webhooks follow the ETag convention of templates and drafts: a read carries an `ETag`, a
/// write with a stale `If-Match` is a 412 that changes nothing, `*` forces. A write without `If-Match` still goes
/// through, as it always has, so existing scripts keep working.
@Suite struct SettingsETagTests {
    static func etag(_ reply: TestApp.Reply, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> String
    {
        let tag = try #require(reply.headers[.eTag], "\(reply.status) \(reply.text)", sourceLocation: sourceLocation)
        #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && tag.count > 2, sourceLocation: sourceLocation)
        return tag
    }

    static func expectStale(_ reply: TestApp.Reply, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == 412, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.errorStatus == "FAILED_PRECONDITION", sourceLocation: sourceLocation)
        #expect(reply.errorDetails.first?.reason == "ETAG_MISMATCH", sourceLocation: sourceLocation)
    }

    @Test func twoAdminsEditingOneWebhookCannotOverwriteEachOtherSilently() async throws {
        try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.allowPrivate) { app in
            try await app.createProject(WebhookFixture.project)
            let created = try await app.call(
                .post, WebhookFixture.collection,
                body: WebhookRequest(url: "https://hooks.example.com/rc", events: ["*"], description: "first"))
            #expect(created.status == 201)
            let id = try created.decode(Webhook.self).id
            let path = "\(WebhookFixture.collection)/\(id)"
            let atCreation = try Self.etag(created)
            let read = try await app.call(.get, path)
            #expect(try Self.etag(read) == atCreation)

            // Alice and Bob read the same ETag; Alice writes first, Bob's write is refused.
            let alice = try await app.call(
                .patch, path, body: WebhookRequest(description: "alice"), headers: [.ifMatch: atCreation])
            #expect(alice.status == 200, "\(alice.text)")
            let afterAlice = try Self.etag(alice)
            #expect(afterAlice != atCreation)
            let bob = try await app.call(
                .patch, path, body: WebhookRequest(description: "bob"), headers: [.ifMatch: atCreation])
            Self.expectStale(bob)
            #expect(try await app.admin.webhook(WebhookFixture.project, id).description == "alice")
            #expect(try Self.etag(try await app.call(.get, path)) == afterAlice)
            // A deletion with a stale ETag is refused too.
            Self.expectStale(try await app.call(.delete, path, headers: [.ifMatch: atCreation]))
            // Another webhook's ETag is not this one's.
            let other = try await app.call(
                .post, WebhookFixture.collection,
                body: WebhookRequest(url: "https://hooks.example.com/2", events: ["*"]))
            Self.expectStale(
                try await app.call(
                    .patch, path, body: WebhookRequest(description: "x"), headers: [.ifMatch: try Self.etag(other)]))

            let forced = try await app.call(
                .patch, path, body: WebhookRequest(description: "forced"), headers: [.ifMatch: "*"])
            #expect(forced.status == 200, "\(forced.text)")
            let plain = try await app.call(.patch, path, body: WebhookRequest(description: "no header"))
            #expect(plain.status == 200, "\(plain.text)")
            let current = try Self.etag(plain)
            #expect(try await app.call(.delete, path, headers: [.ifMatch: current]).status == 200)
        }
    }

    @Test func twoAdminsEditingOneStoreLinkCannotOverwriteEachOtherSilently() async throws {
        try await FakeAppStore.run { store in
            try await StoreSyncFixture.shop(store) { app, _ in
                // Before any link: an ETag a first PUT may send, to create it only if nobody else did.
                let none = try Self.etag(try await app.call(.get, StoreSyncFixture.path))
                let created = try await app.call(
                    .put, StoreSyncFixture.path, body: StoreSyncFixture.link(), headers: [.ifMatch: none])
                #expect(created.status == 200, "\(created.text)")
                let first = try Self.etag(created)
                #expect(first != none)
                Self.expectStale(
                    try await app.call(
                        .put, StoreSyncFixture.path, body: StoreSyncFixture.link(), headers: [.ifMatch: none]))
                #expect(try Self.etag(try await app.call(.get, StoreSyncFixture.path)) == first)

                let alice = try await app.call(
                    .put, StoreSyncFixture.path, body: StoreSyncFixture.link(autoApprove: true),
                    headers: [.ifMatch: first])
                #expect(alice.status == 200, "\(alice.text)")
                let bob = try await app.call(
                    .put, StoreSyncFixture.path, body: StoreSyncFixture.link(appStoreId: "987654321"),
                    headers: [.ifMatch: first])
                Self.expectStale(bob)
                let now = try await app.call(.get, StoreSyncFixture.path)
                #expect(now.value["appStoreId"] == "123456789" && now.value["autoApprove"] == true, "\(now.text)")
                #expect(try Self.etag(now) == (try Self.etag(alice)))

                #expect(
                    try await app.call(
                        .put, StoreSyncFixture.path, body: StoreSyncFixture.link(), headers: [.ifMatch: "*"]
                    ).status == 200)
                #expect(try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link()).status == 200)
            }
        }
    }
}
