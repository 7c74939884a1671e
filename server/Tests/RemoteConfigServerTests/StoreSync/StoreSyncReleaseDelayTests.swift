import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// Apple's lookup shows a new version before every storefront offers it: a listing, and every value mapped
/// from it, is published only once its `currentVersionReleaseDate` is `releaseDelaySeconds` old.
@Suite struct StoreSyncReleaseDelayTests {
    /// The force-update template with a `min_os_version` STRING parameter.
    static var template: JSONValue {
        StoreSyncFixture.template(
            setting: "min_os_version", to: ["defaultValue": ["value": "14.0"], "valueType": "STRING"])
    }

    static let mapping = StoreLinkTargets([
        .init(parameter: "current_version", field: "version"),
        .init(parameter: "min_os_version", field: "minimumOsVersion"),
    ])

    static func ago(_ seconds: TimeInterval) -> String {
        JSONResponse.timestamp(Date().addingTimeInterval(-seconds))
    }

    @Test func aVersionReleasedLessThanADayAgoWaitsWithItsMinimumOS() async throws {
        try await FakeAppStore.run { store in
            try await StoreSyncFixture.shop(store) { app, key in
                #expect(try await app.publish("shop-app", Self.template).status == 200)
                let saved = try await app.call(
                    .put, StoreSyncFixture.path, body: StoreSyncFixture.link(parameters: Self.mapping))
                #expect(
                    try saved.decode(RemoteConfigAPI.StoreLink.self).releaseDelaySeconds == 86_400,
                    "the default is a day: \(saved.text)")
                #expect(saved.value["pendingStoreVersion"] == .null)
                #expect(saved.value["pendingUntil"] == .null)
                let released = Self.ago(3600)
                store.answer(.listing(version: "2.4.0", minimumOsVersion: "16.0", releaseDate: released))
                let run = try await app.call(.post, StoreSyncFixture.run)
                let pending = try run.decode(RemoteConfigAPI.StoreLink.self)
                #expect(pending.result == "PENDING", "\(run.text)")
                #expect(pending.pendingStoreVersion == "2.4.0")
                #expect(pending.lastStoreVersion == "2.4.0")
                let until = try #require(run.value["pendingUntil"]?.stringValue.flatMap { RFC3339.parse($0) })
                let expected = try #require(RFC3339.parse(released)).addingTimeInterval(86_400)
                #expect(abs(until.timeIntervalSince(expected)) < 0.01, "\(until) is not \(expected)")
                // Nothing of the listing is published meanwhile, not even its minimum OS.
                let entries = try await StoreSyncFixture.entries(app, key)
                #expect(entries["current_version"] == "2.3.0")
                #expect(entries["min_os_version"] == "14.0")
                #expect(try await StoreSyncFixture.versions(app).count == 2)
                #expect(
                    try await app.call(.get, StoreSyncFixture.path).decode(RemoteConfigAPI.StoreLink.self)
                        .pendingStoreVersion == "2.4.0")

                // A listing old enough is published whole, and the wait is over.
                store.answer(.listing(version: "2.4.0", minimumOsVersion: "16.0", releaseDate: Self.ago(86_401)))
                let later = try await app.call(.post, StoreSyncFixture.run)
                #expect(try later.decode(RemoteConfigAPI.StoreLink.self).result == "PUBLISHED", "\(later.text)")
                #expect(later.value["pendingStoreVersion"] == .null)
                #expect(later.value["pendingUntil"] == .null)
                let now = try await StoreSyncFixture.entries(app, key)
                #expect(now["current_version"] == "2.4.0")
                #expect(now["min_os_version"] == "16.0")
            }
        }
    }

    @Test func theSyncThatFindsTheWaitOverPublishesIt() async throws {
        try await FakeAppStore.run { store in
            try await StoreSyncFixture.shop(store, configure: { $0.storeSyncPollInterval = .milliseconds(100) }) {
                app, key in
                #expect(try await app.publish("shop-app", Self.template).status == 200)
                store.answer(.listing(version: "2.4.0", minimumOsVersion: "16.0", releaseDate: Self.ago(0)))
                let saved = try await app.call(
                    .put, StoreSyncFixture.path,
                    body: StoreSyncFixture.link(enabled: true, parameters: Self.mapping, releaseDelaySeconds: 10))
                #expect(saved.status == 200, "\(saved.text)")
                #expect(try saved.decode(RemoteConfigAPI.StoreLink.self).releaseDelaySeconds == 10)
                #expect(
                    try await StoreSyncFixture.eventually {
                        try await app.call(.get, StoreSyncFixture.path).decode(RemoteConfigAPI.StoreLink.self)
                            .pendingStoreVersion
                            == "2.4.0"
                    })
                #expect(try await StoreSyncFixture.entries(app, key)["current_version"] == "2.3.0")
                // The server syncs again when the wait ends, although the interval is an hour.
                #expect(
                    try await StoreSyncFixture.eventually(.seconds(30)) {
                        try await StoreSyncFixture.entries(app, key)["current_version"] == "2.4.0"
                    })
                #expect(try await StoreSyncFixture.entries(app, key)["min_os_version"] == "16.0")
                // The link's status is written just after the publish it reports, in its own transaction.
                #expect(
                    try await StoreSyncFixture.eventually {
                        try await app.call(.get, StoreSyncFixture.path).value["pendingStoreVersion"] == .null
                    })
                #expect(store.requests.count == 2, "\(store.requests)")
            }
        }
    }

    @Test func noDelayPublishesAtOnceAndABadDelayIsRefused() async throws {
        try await FakeAppStore.run { store in
            try await StoreSyncFixture.shop(store) { app, key in
                // A release date in the future (a clock ahead) does not matter when nothing is held back.
                store.answer(.listing(version: "2.4.0", releaseDate: Self.ago(-600)))
                try await app.call(
                    .put, StoreSyncFixture.path, body: StoreSyncFixture.link(releaseDelaySeconds: 0))
                let run = try await app.call(.post, StoreSyncFixture.run)
                #expect(try run.decode(RemoteConfigAPI.StoreLink.self).result == "PUBLISHED", "\(run.text)")
                #expect(try await StoreSyncFixture.entries(app, key)["current_version"] == "2.4.0")

                for bad: JSONValue in [-1, 2_592_001, 1.5, "86400", true] {
                    let reply = try await app.call(
                        .put, StoreSyncFixture.path, json: StoreSyncFixture.linkJSON(["releaseDelaySeconds": bad]))
                    #expect(reply.status == 400, "\(bad): \(reply.text)")
                    #expect(reply.errorReasons == ["INVALID_RELEASE_DELAY"], "\(bad): \(reply.text)")
                }
                #expect(
                    try await app.call(.get, StoreSyncFixture.path).decode(RemoteConfigAPI.StoreLink.self)
                        .releaseDelaySeconds == 0)

                // With a delay, a listing without a release date is not published early.
                try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link())
                store.answer(
                    .body(#"{"resultCount":1,"results":[{"version":"2.5.0","trackViewUrl":"https://a.b/c"}]}"#))
                let missing = try await app.call(.post, StoreSyncFixture.run)
                let failed = try missing.decode(RemoteConfigAPI.StoreLink.self)
                #expect(failed.result == "FAILED")
                #expect(failed.lastError?.contains("no currentVersionReleaseDate") == true)
                #expect(try await StoreSyncFixture.entries(app, key)["current_version"] == "2.4.0")
            }
        }
    }
}
