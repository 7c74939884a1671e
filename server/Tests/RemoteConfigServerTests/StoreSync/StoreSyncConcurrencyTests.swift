import Foundation
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// Background syncs run a few at once: one project's store that hangs until the lookup's timeout holds up no
/// other project's sync.
@Suite struct StoreSyncConcurrencyTests {
    @Test func aHangingStoreDelaysNoOtherProjectsSync() async throws {
        try await FakeAppStore.run { store in
            store.answer(.hang, forAppId: "111")
            store.answer(.listing(version: "2.4.0"), forAppId: "222")
            let configure: (inout ServerConfiguration) -> Void = {
                $0.storeLookupTimeout = .seconds(60)
                $0.storeSyncPollInterval = .milliseconds(100)
            }
            try await StoreSyncFixture.shop(store, configure: configure) { app, _ in
                try await app.createProject("other-app")
                try await app.publish("other-app", TemplateFixtures.forceUpdateValue())
                let otherKey = try await app.createKey(role: "client", project: "other-app").secret
                // shop-app's store hangs: its sync holds on for the whole minute of the lookup's timeout.
                let hanging = try await app.call(
                    .put, StoreSyncFixture.path,
                    body: StoreSyncFixture.link(enabled: true, appStoreId: "111"))
                #expect(hanging.status == 200)
                #expect(try await StoreSyncFixture.eventually { store.requests.contains { $0.contains("id=111") } })
                let start = ContinuousClock.now
                let saved = try await app.call(
                    .put, "/v1/projects/other-app/storeSync",
                    body: StoreSyncFixture.link(enabled: true, appStoreId: "222"))
                #expect(saved.status == 200, "\(saved.text)")
                let synced = try await StoreSyncFixture.eventually(.seconds(30)) {
                    let reply = try await ClientCalls.fetch(
                        app, key: otherKey, ClientCalls.iosBody("2.0.0"),
                        path: "/v1/projects/other-app/remoteConfig:fetch")
                    return StoreSyncFixture.strings(reply.value["entries"])["current_version"] == "2.4.0"
                }
                #expect(synced)
                let took = ContinuousClock.now - start
                #expect(took < .seconds(10), "other-app waited \(took) behind the hanging store")
                #expect(store.mostInFlight >= 2)
            }
        }
    }

    @Test func atMostFourBackgroundSyncsRunAtOnce() async throws {
        try await FakeAppStore.run { store in
            store.answer(.listing(version: "2.4.0"), delay: .milliseconds(800))
            let configure: (inout ServerConfiguration) -> Void = { $0.storeSyncPollInterval = .milliseconds(100) }
            try await StoreSyncFixture.shop(store, configure: configure) { app, _ in
                let projects = (1...6).map { "app-\($0)" }
                for project in projects {
                    try await app.createProject(project)
                    try await app.publish(project, TemplateFixtures.forceUpdateValue())
                }
                for project in projects {
                    let saved = try await app.call(
                        .put, "/v1/projects/\(project)/storeSync", body: StoreSyncFixture.link(enabled: true))
                    #expect(saved.status == 200)
                }
                #expect(try await StoreSyncFixture.eventually { store.requests.count == projects.count })
                #expect(store.mostInFlight <= StoreSync.concurrentSyncs, "\(store.mostInFlight) at once")
                #expect(store.mostInFlight >= 2, "the syncs ran one at a time")
            }
        }
    }
}
