import Foundation
import Testing

@testable import RemoteConfigClient

private let storeURL = URL(string: "https://apps.apple.com/app/id123456789")!

private func identity(_ version: String, build: String = "1") -> AppIdentity {
    AppIdentity(appId: "com.example.shop", platform: .ios, version: version, build: build)
}

/// What the server sends the broken release 1.1.4: blocked by a condition on `app.version`.
private let blockedAnswer: StubResponse = .ok(
    ["require_force_update": "true", "current_version": "1.2.0", "app_store_url": storeURL.absoluteString],
    etag: "\"blocked\"")

/// What the server sends 1.2.0 and later.
private let fixedAnswer: StubResponse = .ok(
    ["require_force_update": "false", "current_version": "1.2.0", "app_store_url": storeURL.absoluteString],
    etag: "\"fixed\"")

/// A user on a blocked release installs the fix: the old version's forced update must not follow them.
@Suite struct AppUpdateTests {
    @Test func offlineAfterUpdatingTheOldVersionsForcedUpdateIsNotApplied() async throws {
        let harness = Harness(app: identity("1.1.4"))
        defer { harness.cleanUp() }
        harness.transport.enqueue(blockedAnswer)
        try await harness.makeConfig().fetchAndActivate()
        #expect(harness.makeConfig().checkForUpdate() == .updateRequired(storeURL: storeURL), "1.1.4 stays blocked")

        // The user installs 1.2.0 and opens it without network.
        let offline = FakeTransport()
        offline.enqueueOffline()
        let updated = harness.makeConfig(transport: offline, app: identity("1.2.0"))
        updated.setDefaults(["require_force_update": false])
        await #expect(throws: RemoteConfigError.self) { try await updated.fetchAndActivate() }
        #expect(updated.checkForUpdate() == .upToDate)
        #expect(updated["require_force_update"].boolValue == false)
        #expect(updated["require_force_update"].source == .default, "the old version's flag is not served")
        #expect(updated["current_version"].source == .remote, "other values are kept")
        #expect(offline.fetchCount == 1, "the throttle did not hold back the fetch after the update")
    }

    @Test func onlineAfterUpdatingNothingBlocksBeforeTheFetchAndTheFetchIsNotThrottled() async throws {
        let harness = Harness(app: identity("1.1.4"))
        defer { harness.cleanUp() }
        harness.transport.enqueue(blockedAnswer)
        try await harness.makeConfig().fetchAndActivate()

        harness.clock.advance(60)  // well within the 12-hour minimum fetch interval
        let updated = harness.makeConfig(app: identity("1.2.0"))
        #expect(updated.checkForUpdate() == .upToDate, "the launch check before the fetch completes")
        harness.transport.enqueue(fixedAnswer)
        #expect(try await updated.fetchAndActivate() == .successFetchedFromRemote)
        #expect(harness.transport.fetchCount == 2)
        #expect(jsonBody(of: harness.transport.requests[1])["appVersion"] as? String == "1.2.0")
        #expect(updated.checkForUpdate() == .upToDate)

        // Within the interval again, the same version is throttled as before.
        #expect(try await updated.fetchAndActivate() == .successUsingPreFetchedData)
        #expect(harness.transport.fetchCount == 2)
    }

    @Test func aForcedUpdateConfirmedForTheNewVersionStillApplies() async throws {
        let harness = Harness(app: identity("1.1.3"))
        defer { harness.cleanUp() }
        harness.transport.enqueue(blockedAnswer)
        try await harness.makeConfig().fetchAndActivate()

        // 1.1.4 is blocked too: the server answers 304 (the same entries) for the new version.
        let updated = harness.makeConfig(app: identity("1.1.4"))
        harness.transport.enqueue(.notModified(etag: "\"blocked\""))
        #expect(try await updated.fetchAndActivate() == .successUsingPreFetchedData)
        #expect(updated.checkForUpdate() == .updateRequired(storeURL: storeURL))
        #expect(harness.makeConfig(app: identity("1.1.4")).checkForUpdate() == .updateRequired(storeURL: storeURL))
    }

    @Test func aNewBuildOfTheSameVersionCountsAsAnUpdate() async throws {
        let harness = Harness(app: identity("1.1.4", build: "40"))
        defer { harness.cleanUp() }
        harness.transport.enqueue(blockedAnswer)
        try await harness.makeConfig().fetchAndActivate()

        let rebuilt = harness.makeConfig(app: identity("1.1.4", build: "41"))
        let offered = ForceUpdateDecision.updateAvailable(latest: "1.2.0", storeURL: storeURL)
        #expect(rebuilt.checkForUpdate() == offered, "the flag was decided for build 40")
        harness.transport.enqueue(fixedAnswer)
        try await rebuilt.fetchAndActivate()
        #expect(harness.transport.fetchCount == 2)
        #expect(rebuilt.checkForUpdate() == offered)
    }
}
