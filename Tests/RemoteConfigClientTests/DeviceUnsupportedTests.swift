import Foundation
import Testing

@testable import RemoteConfigClient

private let storeURL = URL(string: "https://apps.apple.com/app/id123456789")!

private func identity(version: String, osVersion: String?) -> AppIdentity {
    AppIdentity(appId: "com.example.shop", platform: .ios, version: version, build: "1", osVersion: osVersion)
}

/// The force-update template of docs/sdk.md: 3.0.0 is the latest and needs iOS 16; versions below 2.0.0 are blocked.
private let entries = [
    "current_version": "3.0.0", "min_supported_version": "2.0.0", "min_os_version": "16.0",
    "require_force_update": "false", "app_store_url": storeURL.absoluteString,
]

/// `checkForUpdate()` on a device whose OS the latest version no longer supports, and the OS version in every fetch.
@Suite struct DeviceUnsupportedTests {
    private func decision(version: String, osVersion: String?, entries: [String: String] = entries) async throws
        -> ForceUpdateDecision
    {
        let harness = Harness(app: identity(version: version, osVersion: osVersion))
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueue(.ok(entries))
        try await config.fetchAndActivate()
        return config.checkForUpdate()
    }

    @Test func aBlockedVersionOnAnOSTooOldForTheLatestIsToldItsDeviceIsUnsupported() async throws {
        #expect(
            try await decision(version: "1.9.0", osVersion: "15.7.2")
                == .deviceUnsupported(latest: "3.0.0", minimumOS: "16.0"))
    }

    @Test func aMerelyBehindVersionOnAnOSTooOldIsToldSoToo() async throws {
        #expect(
            try await decision(version: "2.5.0", osVersion: "15.7.2")
                == .deviceUnsupported(latest: "3.0.0", minimumOS: "16.0"))
    }

    @Test func aNewEnoughOSGetsTheUsualDecisions() async throws {
        #expect(try await decision(version: "1.9.0", osVersion: "16.0") == .updateRequired(storeURL: storeURL))
        #expect(
            try await decision(version: "2.5.0", osVersion: "17.4.1")
                == .updateAvailable(latest: "3.0.0", storeURL: storeURL))
    }

    @Test func anUpToDateAppIsUpToDateOnAnyOS() async throws {
        #expect(try await decision(version: "3.0.0", osVersion: "12.0") == .upToDate)
    }

    @Test func anUnknownOrUnreadableOSVersionNeverStrandsTheUser() async throws {
        #expect(try await decision(version: "1.9.0", osVersion: nil) == .updateRequired(storeURL: storeURL))
        #expect(try await decision(version: "1.9.0", osVersion: "15-beta") == .updateRequired(storeURL: storeURL))
        var noMinimum = entries
        noMinimum["min_os_version"] = ""
        #expect(
            try await decision(version: "2.5.0", osVersion: "15.0", entries: noMinimum)
                == .updateAvailable(latest: "3.0.0", storeURL: storeURL))
    }

    @Test func aForcedFlagWithoutACurrentVersionStillNamesTheMinimumOS() async throws {
        let forced = ["require_force_update": "true", "min_os_version": "16.0"]
        #expect(
            try await decision(version: "2.5.0", osVersion: "15.0", entries: forced)
                == .deviceUnsupported(latest: nil, minimumOS: "16.0"))
    }

    @Test func theAppNamesItsOwnMinimumOSKey() async throws {
        let harness = Harness(app: identity(version: "2.5.0", osVersion: "15.0"))
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        var renamed = entries
        renamed["min_os_version"] = nil
        renamed["ios_min_os"] = "16"
        harness.transport.enqueue(.ok(renamed))
        try await config.fetchAndActivate()
        #expect(config.checkForUpdate() == .updateAvailable(latest: "3.0.0", storeURL: storeURL))
        config.forceUpdateKeys = ForceUpdateKeys(minimumOSVersion: "ios_min_os")
        #expect(config.checkForUpdate() == .deviceUnsupported(latest: "3.0.0", minimumOS: "16"))
        #expect(config.forceUpdateParameters.minimumOSVersion == "16")
        #expect(ForceUpdateKeys.standard.minimumOSVersion == "min_os_version")
    }

    @Test func everyFetchSendsTheOSVersion() async throws {
        let harness = Harness(app: identity(version: "2.5.0", osVersion: "17.4.1"))
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueue(.ok(entries), .ok(entries))
        try await config.fetch()
        harness.clock.advance(13 * 60 * 60)
        try await config.fetch()
        #expect(harness.transport.requests.count == 2)
        for request in harness.transport.requests {
            #expect(jsonBody(of: request)["osVersion"] as? String == "17.4.1")
        }
    }

    @Test func theOSVersionDefaultsToTheRunningSystemsAndNilSendsNone() async throws {
        let system = ProcessInfo.processInfo.operatingSystemVersion
        let expected = "\(system.majorVersion).\(system.minorVersion).\(system.patchVersion)"
        let app = AppIdentity(appId: "com.example.shop", platform: .ios, version: "2.1.0", build: "210")
        #expect(app.osVersion == expected)
        #expect(AppIdentity.currentOSVersion == expected)

        let harness = Harness(app: identity(version: "2.5.0", osVersion: nil))
        defer { harness.cleanUp() }
        harness.transport.enqueue(.ok(entries))
        try await harness.makeConfig().fetch()
        let request = try #require(harness.transport.requests.first)
        #expect(jsonBody(of: request)["osVersion"] == nil)
    }

    @Test func anIdentitySavedWithoutAnOSVersionStillDecodes() throws {
        let json = #"{"appId":"a","platform":"IOS","version":"1.0","build":"1"}"#
        let decoded = try JSONDecoder().decode(AppIdentity.self, from: Data(json.utf8))
        #expect(decoded.osVersion == nil)
    }
}
