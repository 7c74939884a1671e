import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// A project that requires approval gets a store version as a change request, never as a direct publish.
@Suite struct StoreSyncApprovalTests {
    static let changeRequests = "/v1/projects/shop-app/remoteConfig/changeRequests"

    @Test func withApprovalRequiredASyncOpensOneChangeRequestForPeopleToApprove() async throws {
        try await FakeAppStore.run { store in
            store.answer(.listing(version: "2.4.0"))
            try await StoreSyncFixture.shop(store) { app, key in
                let patched = try await app.call(
                    .patch, "/v1/projects/shop-app",
                    json: ["requireApproval": true, "approvalsRequired": 1] as JSONValue)
                #expect(patched.status == 200, "\(patched.text)")
                try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link())
                let run = try await app.call(.post, StoreSyncFixture.run)
                #expect(run.status == 200, "\(run.text)")
                #expect((try run.decode(RemoteConfigAPI.StoreLink.self).result) == "CHANGE_REQUEST")
                let name = try #require((try run.decode(RemoteConfigAPI.StoreLink.self).changeRequest))
                // Nothing is published until people approve.
                #expect(try await StoreSyncFixture.versions(app).count == 1)
                #expect(try await StoreSyncFixture.entries(app, key)["current_version"] != "2.4.0")
                let request = try await app.call(.get, "/v1/projects/shop-app/remoteConfig/\(name)")
                    .decode(ChangeRequest.self)
                #expect(request.state == "OPEN")
                #expect(request.description.contains("2.4.0"))

                // The same store version again does not open a second request.
                let again = try await app.call(.post, StoreSyncFixture.run)
                #expect((try again.decode(RemoteConfigAPI.StoreLink.self).changeRequest) == name)
                let open = try await app.call(.get, Self.changeRequests).decode(ChangeRequestList.self).changeRequests
                #expect(open.count == 1)

                // Approved by a person and published, the store's value is served.
                let reviewer = try await app.createKey(role: "editor", project: "shop-app")
                let approved = try await app.call(
                    .post, "/v1/projects/shop-app/remoteConfig/\(name):approve", token: reviewer.secret,
                    body: ReviewRequest(comment: "release day"))
                #expect(approved.status == 200, "\(approved.text)")
                let published = try await app.call(
                    .post, "/v1/projects/shop-app/remoteConfig/\(name):publish", json: [:] as JSONValue)
                #expect(published.status == 200, "\(published.text)")
                #expect(try await StoreSyncFixture.entries(app, key)["current_version"] == "2.4.0")
            }
        }
    }

    @Test func withAutoApproveTheServersRequestIsPublishedAtOnce() async throws {
        try await FakeAppStore.run { store in
            store.answer(.listing(version: "2.4.0"))
            try await StoreSyncFixture.shop(store) { app, key in
                let patched = try await app.call(
                    .patch, "/v1/projects/shop-app", body: UpdateProjectRequest(requireApproval: true))
                #expect(patched.status == 200, "\(patched.text)")
                try await app.call(
                    .put, StoreSyncFixture.path, body: StoreSyncFixture.link(autoApprove: true))
                let run = try await app.call(.post, StoreSyncFixture.run)
                #expect((try run.decode(RemoteConfigAPI.StoreLink.self).result) == "CHANGE_REQUEST", "\(run.text)")
                let name = try #require((try run.decode(RemoteConfigAPI.StoreLink.self).changeRequest))
                let followed = try await StoreSyncFixture.eventually {
                    try await StoreSyncFixture.entries(app, key)["current_version"] == "2.4.0"
                }
                #expect(followed, "the auto-approved request was not published")
                let request = try await app.call(.get, "/v1/projects/shop-app/remoteConfig/\(name)")
                    .decode(ChangeRequest.self)
                #expect(request.state == "PUBLISHED")
                let version = try #require(try await StoreSyncFixture.versions(app).first)
                #expect(version["updateOrigin"] == "CHANGE_REQUEST")
                #expect(version["description"]?.stringValue?.contains("2.4.0") == true)
            }
        }
    }
}
