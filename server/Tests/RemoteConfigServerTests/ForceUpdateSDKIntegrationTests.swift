import Foundation
import NIOConcurrencyHelpers
import RemoteConfigClient
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// The force-update recipe of docs/sdk.md, end to end: its template published to a real server, and the Swift SDK
/// deciding on devices with different app and OS versions.
@Suite struct ForceUpdateSDKIntegrationTests {
    static let storeURL = URL(string: "https://apps.apple.com/app/id123456789")!

    /// The JSON block docs/sdk.md marks as the force-update template, as a team would copy it.
    static func documentedTemplate() throws -> Data {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/sdk.md"), encoding: .utf8)
        let marker = try #require(doc.range(of: "<!-- force-update-template:"))
        let fence = try #require(doc.range(of: "```json\n", range: marker.upperBound..<doc.endIndex))
        let close = try #require(doc.range(of: "\n```\n", range: fence.upperBound..<doc.endIndex))
        return Data(doc[fence.upperBound..<close.lowerBound].utf8)
    }

    /// A clock the test moves: the SDK's prompt policy reads it.
    final class Clock: Sendable {
        private let current = NIOLockedValueBox(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { current.withLockedValue { $0 } }
        func advance(_ seconds: TimeInterval) { current.withLockedValue { $0 += seconds } }
    }

    static func sdk(
        port: Int, key: String, version: String, osVersion: String?, directory: URL, clock: Clock = Clock()
    ) -> RemoteConfig {
        RemoteConfig(
            serverURL: URL(string: "http://127.0.0.1:\(port)")!, project: "shop-app", clientKey: key,
            app: AppIdentity(
                appId: "com.example.shop", platform: .ios, version: version, build: "1", osVersion: osVersion),
            storageDirectory: directory, device: DeviceContext(countryCode: "JP", languageCode: "ja-JP"),
            now: { clock.now })
    }

    static func withShop(
        _ template: Data, _ body: @Sendable @escaping (TestApp.Session, String) async throws -> Void
    ) async throws {
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            let published = try await app.publish("shop-app", try JSONValue(parsing: [UInt8](template)))
            try SetupFailure.unless(published.status == 200, "could not publish: \(published.text)")
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await body(app, key.secret)
        }
    }

    @Test func eachRowOfTheDocumentedTableHolds() async throws {
        try await Self.withShop(try Self.documentedTemplate()) { app, key in
            let rows: [(String, String, ForceUpdateDecision)] = [
                ("1.9.9", "17.4.1", .updateRequired(storeURL: Self.storeURL)),
                ("2.4.0", "17.4.1", .updateRequired(storeURL: Self.storeURL)),
                ("2.5.0", "17.4.1", .updateAvailable(latest: "3.0.0", storeURL: Self.storeURL)),
                ("1.9.9", "15.7.2", .deviceUnsupported(latest: "3.0.0", minimumOS: "16.0")),
                ("2.5.0", "15.7.2", .deviceUnsupported(latest: "3.0.0", minimumOS: "16.0")),
                ("3.0.0", "15.7.2", .upToDate),
                ("3.0.0", "17.4.1", .upToDate),
            ]
            for (version, osVersion, expected) in rows {
                let directory = SDKIntegrationTests.temporaryDirectory()
                defer { try? FileManager.default.removeItem(at: directory) }
                let config = Self.sdk(
                    port: app.port, key: key, version: version, osVersion: osVersion, directory: directory)
                config.updatePromptPolicy = .daily
                let status = try await config.fetchAndActivate()
                #expect(status == .successFetchedFromRemote)
                #expect(config.checkForUpdate() == expected, "\(version) on iOS \(osVersion)")
                // The alert texts come in the device's language.
                #expect(config["device_unsupported_title"].stringValue == "お使いのデバイスはサポート対象外になりました")
                #expect(config["update_required_title"].stringValue == "アップデートしてください")
            }
        }
    }

    @Test func theDailyPolicyHoldsAnOptionalUpdateBackAcrossLaunchesButNeverARequiredOne() async throws {
        try await Self.withShop(try Self.documentedTemplate()) { app, key in
            let directory = SDKIntegrationTests.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let clock = Clock()
            func launch(_ version: String) -> RemoteConfig {
                let config = Self.sdk(
                    port: app.port, key: key, version: version, osVersion: "17.4.1", directory: directory,
                    clock: clock)
                config.updatePromptPolicy = .daily
                return config
            }
            let first = launch("2.5.0")
            try await first.fetchAndActivate()
            #expect(first.checkForUpdate() == .updateAvailable(latest: "3.0.0", storeURL: Self.storeURL))
            first.updatePromptShown(version: "3.0.0")

            clock.advance(3_600)
            let second = launch("2.5.0")
            #expect(second.checkForUpdate() == .upToDate, "shown an hour ago")
            clock.advance(86_400)
            #expect(launch("2.5.0").checkForUpdate() == .updateAvailable(latest: "3.0.0", storeURL: Self.storeURL))
            second.dismissUpdate(version: "3.0.0")
            clock.advance(30 * 86_400)
            let skipped = launch("2.5.0")
            try await skipped.fetchAndActivate()
            #expect(skipped.checkForUpdate() == .upToDate, "skipped")

            let blocked = launch("2.4.0")
            try await blocked.fetchAndActivate()
            #expect(blocked.checkForUpdate() == .updateRequired(storeURL: Self.storeURL))
        }
    }

    @Test func theServerSeesTheOSVersionTheSDKSends() async throws {
        let template = Data(DeviceOSVersionTests.templateValue.jsonBytes())
        try await Self.withShop(template) { app, key in
            let rows: [(String?, String, ForceUpdateDecision)] = [
                ("15.7.2", "2.9.4", .updateAvailable(latest: "2.9.4", storeURL: nil)),
                ("17.4.1", "3.0.0", .updateAvailable(latest: "3.0.0", storeURL: nil)),
                (nil, "3.0.0", .updateAvailable(latest: "3.0.0", storeURL: nil)),
            ]
            for (osVersion, current, decision) in rows {
                let directory = SDKIntegrationTests.temporaryDirectory()
                defer { try? FileManager.default.removeItem(at: directory) }
                let config = Self.sdk(
                    port: app.port, key: key, version: "2.5.0", osVersion: osVersion, directory: directory)
                try await config.fetchAndActivate()
                #expect(config["current_version"].stringValue == current, "iOS \(osVersion ?? "unknown")")
                #expect(config.checkForUpdate() == decision, "iOS \(osVersion ?? "unknown")")
            }
            // iOS 14 is below even the older version's minimum: the device is unsupported.
            let directory = SDKIntegrationTests.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let ios14 = Self.sdk(port: app.port, key: key, version: "2.5.0", osVersion: "14.8", directory: directory)
            try await ios14.fetchAndActivate()
            #expect(ios14.checkForUpdate() == .deviceUnsupported(latest: "2.9.4", minimumOS: "15.0"))
        }
    }
}
