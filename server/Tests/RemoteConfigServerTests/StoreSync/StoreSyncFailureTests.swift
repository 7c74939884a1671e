import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// A store that fails never changes a parameter; the failure is in the status, the metrics and the log, and
/// the link is retried later with a growing delay.
@Suite struct StoreSyncFailureTests {
    static let failures = #"rc_store_sync_failures_total{store="app_store"}"#

    @Test func aStoreThatFailsInAnyWayChangesNothing() async throws {
        try await FakeAppStore.run { store in
            try await StoreSyncFixture.shop(store, configure: { $0.storeLookupTimeout = .seconds(2) }) {
                app, key in
                try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link())
                let before = try await StoreSyncFixture.entries(app, key)
                let answers: [(FakeAppStore.Answer, String)] = [
                    (.status(503), "HTTP 503"),
                    (.status(404), "HTTP 404"),
                    (.body("<html>Apple is down</html>"), "not JSON"),
                    (.body(#"{"resultCount":1}"#), "no results array"),
                    (.body(#"{"resultCount":1,"results":[{"version":7}]}"#), "version is not a string"),
                    (.body(#"{"resultCount":1,"results":[{"version":"  "}]}"#), "no version"),
                    (.body(#"{"resultCount":1,"results":[{"version":"2.4.0"}]}"#), "has no trackViewUrl"),
                    (.body(#"{"resultCount":1,"results":["2.4.0"]}"#), "not an object"),
                    (.empty, "empty results"),
                    (.hang, "did not answer within"),
                ]
                var previousTime: Date?
                for (index, (answer, expected)) in answers.enumerated() {
                    store.answer(answer)
                    let run = try await app.call(.post, StoreSyncFixture.run)
                    #expect(run.status == 200, "\(answer): \(run.text)")
                    #expect(
                        (try run.decode(RemoteConfigAPI.StoreLink.self).result) == "FAILED", "\(answer): \(run.text)")
                    let error = (try run.decode(RemoteConfigAPI.StoreLink.self).lastError) ?? ""
                    #expect(error.contains(expected), "\(answer): \(error)")
                    #expect((try run.decode(RemoteConfigAPI.StoreLink.self).consecutiveFailures) == index + 1)
                    let time = (try run.decode(RemoteConfigAPI.StoreLink.self).lastSyncTime)
                    #expect(time != nil)
                    if let time, let previousTime { #expect(time >= previousTime) }
                    previousTime = time
                    #expect(try await StoreSyncFixture.entries(app, key) == before, "\(answer) changed a value")
                }
                #expect(try await StoreSyncFixture.versions(app).count == 1)
                let metrics = try await app.call(.get, "/metrics", token: nil).text
                #expect(MetricsTests.value(metrics, Self.failures) == Double(answers.count))
                #expect(MetricsTests.value(metrics, #"rc_store_syncs_total{result="failed"}"#) == Double(answers.count))

                // The store is back: the next sync publishes and the failures are forgotten.
                store.answer(.listing(version: "2.4.0"))
                let run = try await app.call(.post, StoreSyncFixture.run)
                #expect((try run.decode(RemoteConfigAPI.StoreLink.self).result) == "PUBLISHED")
                #expect((try run.decode(RemoteConfigAPI.StoreLink.self).lastError) == nil)
                #expect((try run.decode(RemoteConfigAPI.StoreLink.self).consecutiveFailures) == 0)
                #expect(try await StoreSyncFixture.entries(app, key)["current_version"] == "2.4.0")
            }
        }
    }

    @Test func aStoreThatCannotBeReachedChangesNothing() async throws {
        // Nothing listens on port 9 of loopback (TestApp's default lookup URL): the connection is refused.
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link())
            let run = try await app.call(.post, StoreSyncFixture.run)
            #expect((try run.decode(RemoteConfigAPI.StoreLink.self).result) == "FAILED")
            #expect(
                (try run.decode(RemoteConfigAPI.StoreLink.self).lastError)?.contains("could not be reached") == true,
                "\(run.text)")
            #expect(try await StoreSyncFixture.versions(app).count == 1)
        }
    }

    @Test func repeatedFailuresBackOff() async throws {
        try await FakeAppStore.run { store in
            store.answer(.status(500))
            try await StoreSyncFixture.shop(store, configure: { $0.storeSyncPollInterval = .milliseconds(50) }) {
                app, _ in
                // Enabled: the server syncs it at once, fails, and waits a minute before the next attempt.
                try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link(enabled: true))
                #expect(
                    try await StoreSyncFixture.eventually {
                        try await app.call(.get, StoreSyncFixture.path).decode(RemoteConfigAPI.StoreLink.self)
                            .consecutiveFailures == 1
                    })
                let status = try await app.call(.get, StoreSyncFixture.path).decode(RemoteConfigAPI.StoreLink.self)
                let last = try #require(status.lastSyncTime)
                let next = try #require(status.nextSyncTime)
                #expect(abs(next.timeIntervalSince(last) - 60) < 5, "first retry after \(next.timeIntervalSince(last))")
                // Not hammered: the failed link is not tried again meanwhile.
                #expect(store.requests.count == 1)
                // Each failure in a row doubles the wait, up to the larger of the interval and an hour.
                for (failures, expected) in [(2, 120), (3, 240), (7, 3600), (30, 3600)] {
                    let delay = StoreSync.retryDelay(failures: failures, interval: 3600)
                    #expect(delay == .seconds(expected), "after \(failures) failures")
                }
                #expect(StoreSync.retryDelay(failures: 30, interval: 86_400) == .seconds(86_400))
            }
        }
    }

    @Test func aTargetThatIsNoLongerAStringMakesTheSyncFailAndChangesNothing() async throws {
        try await FakeAppStore.run { store in
            store.answer(.listing(version: "2.4.0"))
            try await StoreSyncFixture.shop(store) { app, _ in
                try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link())
                let template = StoreSyncFixture.template(
                    setting: "current_version", to: ["defaultValue": ["value": "2"], "valueType": "NUMBER"])
                #expect(try await app.publish("shop-app", template).status == 200)
                let run = try await app.call(.post, StoreSyncFixture.run)
                #expect((try run.decode(RemoteConfigAPI.StoreLink.self).result) == "FAILED")
                #expect(
                    (try run.decode(RemoteConfigAPI.StoreLink.self).lastError)?.contains("current_version is NUMBER")
                        == true, "\(run.text)")
                #expect(try await StoreSyncFixture.versions(app).count == 2)
            }
        }
    }
}
