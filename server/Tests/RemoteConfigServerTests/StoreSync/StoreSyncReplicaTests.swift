import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// Two servers on one database: each sync happens on exactly one of them, and both serve its version.
@Suite struct StoreSyncReplicaTests {
    /// Two applications on one fresh database, both asking `store`, looking for due links every 100 ms.
    static func twoReplicas(
        _ store: FakeAppStore,
        _ body: @Sendable @escaping (TestApp.Session, TestApp.Session, String) async throws -> Void
    ) async throws {
        let url = try await TestClusterURL.make()
        let lookup = store.url
        let configure: @Sendable (inout ServerConfiguration) -> Void = {
            $0.storeLookupURL = lookup
            $0.storeSyncPollInterval = .milliseconds(100)
        }
        try await TestApp.run(url: url, configure: configure) { one in
            try await one.createProject("shop-app")
            try await one.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let key = try await one.createKey(role: "client", project: "shop-app").secret
            try await TestApp.run(url: url, configure: configure) { two in
                try await body(one, two, key)
            }
        }
    }

    static func syncs(_ app: TestApp.Session) async throws -> Double {
        let text = try await app.call(.get, "/metrics", token: nil).text
        return ["published", "unchanged", "failed"].reduce(0) {
            $0 + MetricsTests.value(text, "rc_store_syncs_total{result=\"\($1)\"}")
        }
    }

    @Test func anEnabledLinkIsSyncedByOneReplicaAndServedByBoth() async throws {
        try await FakeAppStore.run { store in
            // A slow store: while one replica waits for it, the other looks for due links many times over.
            store.answer(.listing(version: "2.4.0"), delay: .milliseconds(400))
            try await Self.twoReplicas(store) { one, two, key in
                let saved = try await one.call(
                    .put, StoreSyncFixture.path, body: StoreSyncFixture.link(enabled: true))
                #expect(saved.status == 200)
                for app in [one, two] {
                    #expect(
                        try await StoreSyncFixture.eventually {
                            try await StoreSyncFixture.entries(app, key)["current_version"] == "2.4.0"
                        }, "a replica does not serve the synced version")
                }
                // Both keep looking for due links: the synced link is not due again for an hour.
                try await Task.sleep(for: .seconds(1))
                #expect(store.requests.count == 1, "\(store.requests)")
                #expect(store.mostInFlight == 1)
                #expect(try await StoreSyncFixture.versions(one).count == 2)
                #expect(try await Self.syncs(one) + Self.syncs(two) == 1)
            }
        }
    }

    @Test func syncsAskedOfBothReplicasAtOnceTakeTurnsAndPublishOnce() async throws {
        try await FakeAppStore.run { store in
            store.answer(.listing(version: "2.4.0"), delay: .milliseconds(300))
            try await Self.twoReplicas(store) { one, two, key in
                try await one.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link())
                async let first = one.call(.post, StoreSyncFixture.run)
                async let second = two.call(.post, StoreSyncFixture.run)
                let results = try [try await first, try await second].map {
                    try $0.decode(RemoteConfigAPI.StoreLink.self).result ?? ""
                }
                #expect(results.sorted() == ["PUBLISHED", "UNCHANGED"], "\(results)")
                #expect(store.mostInFlight == 1, "two syncs of one link ran at the same time")
                #expect(try await StoreSyncFixture.versions(one).count == 2)
                #expect(
                    try await StoreSyncFixture.eventually {
                        try await StoreSyncFixture.entries(two, key)["current_version"] == "2.4.0"
                    })
            }
        }
    }
}
