import Foundation
import Logging
import NIOConcurrencyHelpers
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// A store value goes into a parameter only when it is what its field says: a version is a version, a URL is
/// https with a host. Anything else fails the sync, names the value in `lastError` and publishes nothing.
@Suite struct StoreSyncValueTests {
    @Test func valuesThatAreNotWhatTheirFieldIsFailTheSyncAndPublishNothing() async throws {
        try await FakeAppStore.run { store in
            try await StoreSyncFixture.shop(store) { app, key in
                try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link())
                let before = try await StoreSyncFixture.entries(app, key)
                let answers: [(FakeAppStore.Answer, String)] = [
                    (.listing(version: "2.4.0\r\n2026-11-26T00:00:00Z warning forged"), "version is not a version"),
                    (.listing(version: "2.4.0\u{1B}[31m"), "version is not a version"),
                    (.listing(version: "<b>2.4</b>"), "version is not a version"),
                    (.listing(version: "2.x"), "version is not a version"),
                    (.listing(version: "2..4"), "version is not a version"),
                    (.listing(version: "2.4.0", trackViewUrl: "javascript:alert(1)"), "not an https URL"),
                    (.listing(version: "2.4.0", trackViewUrl: "http://apps.apple.com/app/id1"), "not an https URL"),
                    (.listing(version: "2.4.0", trackViewUrl: "https:///app/id1"), "not an https URL"),
                    (
                        .listing(version: "2.4.0", trackViewUrl: "https://apps.apple.com/\"><script>x</script>"),
                        "not an https URL"
                    ),
                    (.listing(version: "2.4.0", trackViewUrl: "https://apps.apple.com/a b"), "not an https URL"),
                ]
                for (answer, expected) in answers {
                    store.answer(answer)
                    let run = try await app.call(.post, StoreSyncFixture.run)
                    let link = try run.decode(RemoteConfigAPI.StoreLink.self)
                    #expect(link.result == "FAILED", "\(answer): \(run.text)")
                    let error = link.lastError ?? ""
                    #expect(error.contains(expected), "\(answer): \(error)")
                }
                #expect(try await StoreSyncFixture.entries(app, key) == before)
                #expect(try await StoreSyncFixture.versions(app).count == 1)

                // A parameter whose key ends in _url takes only an https URL, whichever field feeds it; and
                // minimumOsVersion is a version.
                for (mapping, answer, expected): (StoreLinkTargets.Target, FakeAppStore.Answer, String) in [
                    (
                        .init(parameter: "app_store_url", field: "releaseNotes"), .listing(version: "2.4.0"),
                        "cannot go into app_store_url"
                    ),
                    (
                        .init(parameter: "current_version", field: "minimumOsVersion"),
                        .listing(version: "2.4.0", minimumOsVersion: "15.0\n<img src=x>"),
                        "minimumOsVersion is not a version"
                    ),
                    (
                        .init(parameter: "current_version", field: "currentVersionReleaseDate"),
                        .listing(version: "2.4.0", releaseDate: "yesterday"), "not an RFC 3339 time"
                    ),
                ] {
                    let saved = try await app.call(
                        .put, StoreSyncFixture.path,
                        body: StoreSyncFixture.link(parameters: StoreLinkTargets([mapping])))
                    #expect(saved.status == 200, "\(saved.text)")
                    store.answer(answer)
                    let run = try await app.call(.post, StoreSyncFixture.run)
                    let link = try run.decode(RemoteConfigAPI.StoreLink.self)
                    #expect(link.result == "FAILED", "\(mapping): \(run.text)")
                    #expect(link.lastError?.contains(expected) == true, "\(run.text)")
                }
                #expect(try await StoreSyncFixture.versions(app).count == 1)

                // Good values still go through.
                try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link())
                store.answer(.listing(version: "2.4.0", trackViewUrl: "https://apps.apple.com/jp/app/id1?uo=4"))
                let run = try await app.call(.post, StoreSyncFixture.run)
                #expect(try run.decode(RemoteConfigAPI.StoreLink.self).result == "PUBLISHED", "\(run.text)")
            }
        }
    }

    /// Captures what the escaping handler passes on.
    struct Capture: LogHandler {
        let lines: NIOLockedValueBox<[String]>
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).merging(metadata) { a, _ in a }.sorted { $0.key < $1.key }
                .map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let error = event.error.map { " error=\($0)" } ?? ""
            lines.withLockedValue { $0.append("\(event.source) \(event.message) \(fields)\(error)") }
        }
    }

    @Test func everyLogLineEscapesControlCharacters() {
        let lines = NIOLockedValueBox<[String]>([])
        var logger = Logger(label: "test") { _ in EscapingLogHandler(Capture(lines: lines)) }
        logger[metadataKey: "project\nkey"] = "shop\r\napp"
        logger.warning(
            "version 2.4.0\r\n2026-11-26T00:00:00Z critical forged\u{1B}[2J\u{7F}\u{85}\u{2028}\ttab",
            metadata: ["value": "a\u{0}b\u{9B}c", "list": ["x\ny"], "nested": ["k\r": "v\u{1B}"]],
            source: "src\n")
        logger.error("failed", error: StoreSyncProblem(description: "bad\r\nline"))
        let all = lines.withLockedValue { $0 }
        #expect(all.count == 2)
        #expect(all.last?.hasSuffix(#"error=bad\r\nline"#) == true, "\(all)")
        let line = all.first
        let text = line ?? ""
        #expect(!text.unicodeScalars.contains { EscapingLogHandler.needsEscape($0) }, "\(text.debugDescription)")
        #expect(text.contains(#"2.4.0\r\n2026-11-26T00:00:00Z critical forged\u{1B}[2J\u{7F}\u{85}\u{2028}\ttab"#))
        #expect(text.contains(#"a\u{0}b\u{9B}c"#))
        #expect(text.contains(#"shop\r\napp"#))
        #expect(text.hasPrefix(#"src\n "#))
        // Text without control characters is passed on as it is.
        #expect(EscapingLogHandler.escape("plain 2.4.0 – ✓ \\n") == "plain 2.4.0 – ✓ \\n")
    }
}
