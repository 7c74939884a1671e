import Foundation
import RemoteConfigVersions
import Testing
import VersionTableFixture

@testable import RemoteConfigClient

private let storeURL = URL(string: "https://apps.apple.com/app/id123456789")!

/// The entries the server sends a caller, evaluated by hand for three force-update templates.
private enum Template: CaseIterable {
    /// `min_supported_version` 2.0.0, `current_version` 2.3.0; the client compares versions.
    case minSupported
    /// The documented template: conditions `ios_too_old` (`device.os == 'ios' && app.version.<(['2.0.0'])`)
    /// and `broken_1_1_4` (`app.version.==(['1.1.4'])`) set `require_force_update`; `current_version` 2.3.0.
    case serverConditions
    /// Only the broken release 1.1.4 is forced; `current_version` 2.1.
    case broken114

    func entries(forAppVersion version: String) -> [String: String] {
        switch self {
        case .minSupported:
            return [
                "current_version": "2.3.0", "min_supported_version": "2.0.0", "require_force_update": "false",
                "app_store_url": storeURL.absoluteString,
            ]
        case .serverConditions:
            let tooOld = AppVersion.isVersion(version, below: "2.0.0")
            let broken = AppVersion(version).map { $0 == AppVersion("1.1.4")! } ?? false
            return [
                "current_version": "2.3.0", "require_force_update": tooOld || broken ? "true" : "false",
                "app_store_url": storeURL.absoluteString,
            ]
        case .broken114:
            let broken = AppVersion(version).map { $0 == AppVersion("1.1.4")! } ?? false
            return [
                "current_version": "2.1", "require_force_update": broken ? "true" : "false",
                "app_store_url": storeURL.absoluteString,
            ]
        }
    }

    var expected: [String: ForceUpdateDecision] {
        switch self {
        case .minSupported, .serverConditions:
            return [
                "1.0.0": .updateRequired(storeURL: storeURL),
                "1.1.4": .updateRequired(storeURL: storeURL),
                "1.9.9": .updateRequired(storeURL: storeURL),
                "2.0.0": .updateAvailable(latest: "2.3.0", storeURL: storeURL),
                "2.1": .updateAvailable(latest: "2.3.0", storeURL: storeURL),
            ]
        case .broken114:
            return [
                "1.0.0": .updateAvailable(latest: "2.1", storeURL: storeURL),
                "1.1.4": .updateRequired(storeURL: storeURL),
                "1.9.9": .updateAvailable(latest: "2.1", storeURL: storeURL),
                "2.0.0": .updateAvailable(latest: "2.1", storeURL: storeURL),
                "2.1": .upToDate,
            ]
        }
    }
}

@Suite struct ForceUpdateTests {
    @Test(arguments: Template.allCases, ["1.0.0", "1.1.4", "1.9.9", "2.0.0", "2.1"])
    fileprivate func decisionsForIOSVersions(template: Template, version: String) async throws {
        let app = AppIdentity(appId: "com.example.shop", platform: .ios, version: version, build: "1")
        let harness = Harness(app: app)
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueue(.ok(template.entries(forAppVersion: version)))
        try await config.fetchAndActivate()
        #expect(config.checkForUpdate() == template.expected[version])
    }

    @Test func dismissedOptionalUpdateIsNotOfferedAgain() async throws {
        let app = AppIdentity(appId: "com.example.shop", platform: .ios, version: "2.1", build: "1")
        let harness = Harness(app: app)
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueue(.ok(Template.minSupported.entries(forAppVersion: "2.1")))
        try await config.fetchAndActivate()
        #expect(config.checkForUpdate() == .updateAvailable(latest: "2.3.0", storeURL: storeURL))

        config.dismissUpdate(version: "2.3.0")
        #expect(config.checkForUpdate() == .upToDate)
        #expect(harness.makeConfig().checkForUpdate() == .upToDate, "the dismissal persists")

        config.setDefaults(["current_version": "9.9"])
        harness.clock.advance(13 * 60 * 60)
        harness.transport.enqueue(.ok(["current_version": "2.4.0", "app_store_url": storeURL.absoluteString]))
        try await config.fetchAndActivate()
        #expect(config.checkForUpdate() == .updateAvailable(latest: "2.4.0", storeURL: storeURL), "a newer version is")
    }

    @Test func theAppNamesItsOwnKeys() async throws {
        let app = AppIdentity(appId: "com.example.shop", platform: .ios, version: "1.4.0", build: "1")
        let harness = Harness(app: app)
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueue(
            .ok([
                "ios_blocked": "false", "ios_min_version": "1.5", "ios_latest": "2.0",
                "ios_store": storeURL.absoluteString,
                "require_force_update": "true", "current_version": "9.9",
            ]))
        try await config.fetchAndActivate()
        #expect(config.checkForUpdate() == .updateRequired(storeURL: nil), "today's names by default")

        let keys = ForceUpdateKeys(
            requireForceUpdate: "ios_blocked", minSupportedVersion: "ios_min_version", currentVersion: "ios_latest",
            fallbackCurrentVersion: nil, appStoreURL: "ios_store")
        #expect(config.checkForUpdate(keys: keys) == .updateRequired(storeURL: storeURL), "1.4.0 is below 1.5")
        #expect(
            config.checkForUpdate(appVersion: "1.5", keys: keys) == .updateAvailable(latest: "2.0", storeURL: storeURL))

        config.forceUpdateKeys = keys
        #expect(config.checkForUpdate(appVersion: "2.0.0") == .upToDate, "set once, used by every check")
        #expect(config.forceUpdateParameters.minSupportedVersion == "1.5")
        #expect(config.checkForUpdate(keys: .standard) == .updateRequired(storeURL: nil))
    }

    @Test func dismissedVersionsCanBeReadAndCleared() async throws {
        let app = AppIdentity(appId: "com.example.shop", platform: .ios, version: "2.1", build: "1")
        let harness = Harness(app: app)
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        config.setDefaults(["current_version": "2.3.0"])
        #expect(config.dismissedUpdateVersions.isEmpty)
        config.dismissUpdate(version: "2.2")
        config.dismissUpdate(version: "2.3")
        #expect(config.dismissedUpdateVersions == ["2.2", "2.3"])
        #expect(harness.makeConfig().dismissedUpdateVersions == ["2.2", "2.3"], "kept across launches")
        #expect(config.checkForUpdate() == .upToDate)

        config.clearDismissedUpdates(version: "2.3.0")
        #expect(config.dismissedUpdateVersions == ["2.2"], "2.3.0 is 2.3")
        #expect(config.checkForUpdate() == .updateAvailable(latest: "2.3.0", storeURL: nil))
        config.clearDismissedUpdates()
        #expect(config.dismissedUpdateVersions.isEmpty)
        #expect(harness.makeConfig().dismissedUpdateVersions.isEmpty, "the clearing is saved")
    }

    @Test func requiredUpdateIgnoresDismissal() {
        let parameters = ForceUpdateParameters(
            currentVersion: "2.3.0", requireForceUpdate: false, minSupportedVersion: "2.0.0", storeURL: nil)
        #expect(
            parameters.decision(appVersion: "1.0.0", dismissedVersions: ["2.3.0"]) == .updateRequired(storeURL: nil))
        #expect(parameters.decision(appVersion: "2.0.0", dismissedVersions: ["2.3"]) == .upToDate, "2.3 is 2.3.0")
    }

    @Test func unparseableVersions() {
        let parameters = ForceUpdateParameters(
            currentVersion: "2.3.0", requireForceUpdate: false, minSupportedVersion: "2.0.0", storeURL: nil)
        for version in ["2.1-beta", "v2", "1.2.3.4.5.6", "x"] {
            #expect(parameters.decision(appVersion: version) == .upToDate, "app version \(version)")
        }
        var forced = parameters
        forced.requireForceUpdate = true
        #expect(forced.decision(appVersion: "2.1-beta") == .updateRequired(storeURL: nil), "the explicit flag wins")

        let brokenTemplate = ForceUpdateParameters(
            currentVersion: "latest", requireForceUpdate: false, minSupportedVersion: "two", storeURL: nil)
        #expect(brokenTemplate.decision(appVersion: "1.0.0") == .upToDate)
    }

    @Test func latestVersionFallbackAndDefaults() {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        #expect(config.checkForUpdate() == .upToDate, "no parameters, nothing to do")
        config.setDefaults(["latest_version": "3.0", "app_store_url": ""])
        #expect(config.checkForUpdate() == .updateAvailable(latest: "3.0", storeURL: nil))
        #expect(config.checkForUpdate(appVersion: "3.0.0") == .upToDate)
        config.setDefaults(["current_version": "2.5", "latest_version": "3.0", "require_force_update": "yes"])
        #expect(config.checkForUpdate() == .updateRequired(storeURL: nil))
    }

    /// The shared table: the SDK compares versions exactly as the server's conditions do.
    @Test(arguments: VersionTable.pairs)
    func versionsCompareAsTheServerDoes(pair: VersionTable.Pair) {
        guard let order = pair.order else {
            #expect(AppVersion(pair.a) == nil || AppVersion(pair.b) == nil)
            #expect(!AppVersion.isVersion(pair.a, below: pair.b) && !AppVersion.isVersion(pair.b, below: pair.a))
            return
        }
        let a = AppVersion(pair.a)!
        let b = AppVersion(pair.b)!
        #expect((a < b ? -1 : a == b ? 0 : 1) == order)
        #expect(a.version == SemanticVersion(pair.a))
    }
}
