import Foundation
import Testing

@testable import RemoteConfigClient

// recipe:begin (docs/sdk.md, "The app code", without its imports)
/// What the app shows about updates: the decision, with the template's texts in the device's language.
struct UpdatePrompt: Identifiable, Equatable {
    enum Kind: Equatable {
        /// Offer the update: "Update", "Later" or "Skip this version".
        case optional(version: String)
        /// Block the app until it is updated.
        case required
        /// The store has nothing this device can install: say so, and let the user go on.
        case deviceUnsupported
    }

    let id = UUID()
    var kind: Kind
    var title: String
    var message: String
    var storeURL: URL?

    /// The prompt to show now, or `nil`; an optional one is recorded as shown, so `updatePromptPolicy` counts
    /// from now.
    static func current(_ remoteConfig: RemoteConfig) -> UpdatePrompt? {
        func text(_ key: String, version: String? = nil, os: String? = nil) -> String {
            remoteConfig[key].stringValue
                .replacingOccurrences(of: "{version}", with: version ?? "")
                .replacingOccurrences(of: "{os}", with: os ?? "")
        }
        switch remoteConfig.checkForUpdate() {
        case .upToDate:
            return nil
        case .updateAvailable(let latest, let storeURL):
            remoteConfig.updatePromptShown(version: latest)
            return UpdatePrompt(
                kind: .optional(version: latest), title: text("update_available_title"),
                message: text("update_available_message", version: latest), storeURL: storeURL)
        case .updateRequired(let storeURL):
            return UpdatePrompt(
                kind: .required, title: text("update_required_title"), message: text("update_required_message"),
                storeURL: storeURL)
        case .deviceUnsupported(let latest, let minimumOS):
            if let latest { remoteConfig.updatePromptShown(version: latest) }
            return UpdatePrompt(
                kind: .deviceUnsupported, title: text("device_unsupported_title"),
                message: text("device_unsupported_message", version: latest, os: minimumOS), storeURL: nil)
        }
    }
}
// recipe:end

private let storeURL = URL(string: "https://apps.apple.com/app/id123456789")!

/// docs/sdk.md's force-update code: the block compiles here as the doc shows it, and gives each decision's prompt.
@Suite struct ForceUpdateRecipeTests {
    /// What the doc's template sends a Japanese device (`lang_ja`), for an app that is not blocked.
    static let japanese = [
        "current_version": "3.0.0", "min_supported_version": "2.0.0", "min_os_version": "16.0",
        "require_force_update": "false", "app_store_url": storeURL.absoluteString,
        "update_available_title": "新しいバージョンがあります",
        "update_available_message": "バージョン {version} を App Store で入手できます。",
        "update_required_title": "アップデートしてください",
        "update_required_message": "このバージョンはご利用いただけません。アップデートしてください。",
        "device_unsupported_title": "お使いのデバイスはサポート対象外になりました",
        "device_unsupported_message": "バージョン {version} には iOS {os} 以降が必要です。このバージョンは引き続きご利用いただけます。",
    ]

    private func prompt(version: String, os: String, policy: UpdatePromptPolicy = .daily) async throws -> (
        UpdatePrompt?, RemoteConfig, Harness
    ) {
        let harness = Harness(
            app: AppIdentity(appId: "com.example.shop", platform: .ios, version: version, build: "1", osVersion: os))
        let config = harness.makeConfig()
        config.updatePromptPolicy = policy
        harness.transport.enqueue(.ok(Self.japanese))
        try await config.fetchAndActivate()
        return (UpdatePrompt.current(config), config, harness)
    }

    @Test func theFourDecisionsBecomeTheirPrompts() async throws {
        let (required, _, h1) = try await prompt(version: "1.9.9", os: "17.4.1")
        defer { h1.cleanUp() }
        #expect(required?.kind == .required)
        #expect(required?.title == "アップデートしてください")
        #expect(required?.storeURL == storeURL)

        let (available, _, h2) = try await prompt(version: "2.5.0", os: "17.4.1")
        defer { h2.cleanUp() }
        #expect(available?.kind == .optional(version: "3.0.0"))
        #expect(available?.message == "バージョン 3.0.0 を App Store で入手できます。")

        let (unsupported, _, h3) = try await prompt(version: "2.5.0", os: "15.7.2")
        defer { h3.cleanUp() }
        #expect(unsupported?.kind == .deviceUnsupported)
        #expect(unsupported?.message == "バージョン 3.0.0 には iOS 16.0 以降が必要です。このバージョンは引き続きご利用いただけます。")
        #expect(unsupported?.storeURL == nil, "no store page to send an unsupported device to")

        let (upToDate, _, h4) = try await prompt(version: "3.0.0", os: "15.7.2")
        defer { h4.cleanUp() }
        #expect(upToDate == nil)
    }

    @Test func anOptionalPromptIsRecordedSoTheDailyPolicyHoldsItBack() async throws {
        let (first, config, harness) = try await prompt(version: "2.5.0", os: "17.4.1")
        defer { harness.cleanUp() }
        #expect(first != nil)
        #expect(UpdatePrompt.current(config) == nil, "shown once today")
        harness.clock.advance(86_400)
        #expect(UpdatePrompt.current(config)?.kind == .optional(version: "3.0.0"))
        config.dismissUpdate(version: "3.0.0")
        harness.clock.advance(7 * 86_400)
        #expect(UpdatePrompt.current(config) == nil, "skipped")

        let (required, blocked, h2) = try await prompt(version: "1.9.9", os: "17.4.1")
        defer { h2.cleanUp() }
        #expect(required?.kind == .required)
        #expect(UpdatePrompt.current(blocked)?.kind == .required, "a required update comes back every time")
    }

    @Test func theDocShowsThisFilesCopy() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/sdk.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let marker = try #require(doc.range(of: "<!-- force-update-prompt:"))
        let fence = try #require(doc.range(of: "```swift\n", range: marker.upperBound..<doc.endIndex))
        let close = try #require(doc.range(of: "\n```\n", range: fence.upperBound..<doc.endIndex))
        let documented = doc[fence.upperBound..<close.lowerBound].split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .filter { !$0.hasPrefix("import ") }
        .joined(separator: "\n").trimmingCharacters(in: .newlines)
        let begin = try #require(source.range(of: "// recipe:begin"))
        let firstLine = try #require(source.range(of: "\n", range: begin.upperBound..<source.endIndex))
        let end = try #require(source.range(of: "// recipe:end"))
        let copied = source[firstLine.upperBound..<end.lowerBound].trimmingCharacters(in: .newlines)
        #expect(documented == copied)
    }
}
