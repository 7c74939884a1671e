import Foundation
import Testing

@testable import RemoteConfigClient

private let storeURL = URL(string: "https://apps.apple.com/app/id123456789")!

private func template(current: String = "3.0.0", minSupported: String = "2.0.0", minOS: String = "16.0")
    -> [String: String]
{
    [
        "current_version": current, "min_supported_version": minSupported, "min_os_version": minOS,
        "app_store_url": storeURL.absoluteString,
    ]
}

/// `UpdatePromptPolicy`: when an optional update shown once is shown again; a required one always is.
@Suite struct UpdatePromptPolicyTests {
    private let day: TimeInterval = 86_400

    private func harness(version: String = "2.5.0", osVersion: String = "17.4.1") -> Harness {
        Harness(
            app: AppIdentity(
                appId: "com.example.shop", platform: .ios, version: version, build: "1", osVersion: osVersion))
    }

    private func fetched(_ harness: Harness, _ entries: [String: String] = template()) async throws -> RemoteConfig {
        let config = harness.makeConfig()
        harness.transport.enqueue(.ok(entries))
        try await config.fetchAndActivate()
        return config
    }

    private var available: ForceUpdateDecision { .updateAvailable(latest: "3.0.0", storeURL: storeURL) }

    @Test func everyLaunchIsTheDefaultAndShowsTheUpdateEveryTime() async throws {
        let harness = harness()
        defer { harness.cleanUp() }
        let config = try await fetched(harness)
        #expect(config.updatePromptPolicy == .everyLaunch)
        config.updatePromptShown(version: "3.0.0")
        #expect(config.checkForUpdate() == available)
        #expect(harness.makeConfig().checkForUpdate() == available)
    }

    @Test func dailyWaitsADayAfterThePromptAcrossLaunches() async throws {
        let harness = harness()
        defer { harness.cleanUp() }
        let config = try await fetched(harness)
        config.updatePromptPolicy = .daily
        #expect(config.checkForUpdate() == available, "never shown yet")
        config.updatePromptShown(version: "3.0.0")
        #expect(config.checkForUpdate() == .upToDate)

        harness.clock.advance(day - 1)
        let relaunched = harness.makeConfig()
        relaunched.updatePromptPolicy = .daily
        #expect(relaunched.checkForUpdate() == .upToDate, "the prompt's time persists")
        harness.clock.advance(1)
        #expect(relaunched.checkForUpdate() == available)
    }

    @Test func weeklyWaitsAWeek() async throws {
        let harness = harness()
        defer { harness.cleanUp() }
        let config = try await fetched(harness)
        config.updatePromptPolicy = .weekly
        config.updatePromptShown(version: "3.0.0")
        harness.clock.advance(6 * day)
        #expect(config.checkForUpdate() == .upToDate)
        #expect(config.checkForUpdate(policy: .daily) == available, "a call may pass its own policy")
        harness.clock.advance(day)
        #expect(config.checkForUpdate() == available)
        #expect(UpdatePromptPolicy.every(3_600).interval == 3_600)
    }

    @Test func aNewerVersionIsShownAtOnce() async throws {
        let harness = harness()
        defer { harness.cleanUp() }
        let config = try await fetched(harness)
        config.updatePromptPolicy = .weekly
        config.updatePromptShown(version: "3.0.0")
        harness.clock.advance(13 * 60 * 60)
        harness.transport.enqueue(.ok(template(current: "3.1.0")))
        try await config.fetchAndActivate()
        #expect(config.checkForUpdate() == .updateAvailable(latest: "3.1.0", storeURL: storeURL))
    }

    @Test func aSkippedVersionIsNeverShownAgainButANewerOneIs() async throws {
        let harness = harness()
        defer { harness.cleanUp() }
        let config = try await fetched(harness)
        config.updatePromptPolicy = .daily
        config.updatePromptShown(version: "3.0.0")
        config.dismissUpdate(version: "3.0.0")
        harness.clock.advance(30 * day)
        #expect(config.checkForUpdate() == .upToDate)
        #expect(config.checkForUpdate(policy: .everyLaunch) == .upToDate, "skipping outlasts any policy")
        harness.transport.enqueue(.ok(template(current: "3.1.0")))
        try await config.fetchAndActivate()
        #expect(config.checkForUpdate() == .updateAvailable(latest: "3.1.0", storeURL: storeURL))
    }

    @Test func aRequiredUpdateIsAlwaysShown() async throws {
        let harness = harness(version: "1.9.0")
        defer { harness.cleanUp() }
        let config = try await fetched(harness)
        config.updatePromptPolicy = .weekly
        config.updatePromptShown(version: "3.0.0")
        config.dismissUpdate(version: "3.0.0")
        #expect(config.checkForUpdate() == .updateRequired(storeURL: storeURL))
    }

    @Test func anUnsupportedDeviceFollowsThePolicyOnlyWhenItsVersionIsNotBlocked() async throws {
        let behind = harness(osVersion: "15.7.2")
        defer { behind.cleanUp() }
        let config = try await fetched(behind)
        config.updatePromptPolicy = .daily
        #expect(config.checkForUpdate() == .deviceUnsupported(latest: "3.0.0", minimumOS: "16.0"))
        config.updatePromptShown(version: "3.0.0")
        #expect(config.checkForUpdate() == .upToDate)

        let blocked = harness(version: "1.9.0", osVersion: "15.7.2")
        defer { blocked.cleanUp() }
        let blockedConfig = try await fetched(blocked)
        blockedConfig.updatePromptPolicy = .daily
        blockedConfig.updatePromptShown(version: "3.0.0")
        #expect(blockedConfig.checkForUpdate() == .deviceUnsupported(latest: "3.0.0", minimumOS: "16.0"))
    }

    @Test func aClockSetBackDoesNotSilenceTheUpdate() {
        let shown = UpdatePromptRecord(version: "3.0", shownAt: Date(timeIntervalSince1970: 1_000_000))
        let earlier = Date(timeIntervalSince1970: 1_000_000 - 3_600)
        #expect(UpdatePromptPolicy.weekly.allowsPrompt(for: "3.0.0", at: earlier, lastPrompt: shown))
        #expect(!UpdatePromptPolicy.weekly.allowsPrompt(for: "3.0.0", at: shown.shownAt, lastPrompt: shown))
        #expect(UpdatePromptPolicy(interval: -5) == .everyLaunch)
    }
}
