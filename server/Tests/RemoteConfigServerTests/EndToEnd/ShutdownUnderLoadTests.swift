import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// SIGTERM while webhooks wait on receivers that never answer, streams are open and apps fetch: the server
/// exits in about two seconds, not at the attempts' deadline, and its last insights flush still reaches the
/// database (the pool closes after it).
@Suite struct ShutdownUnderLoadTests {
    /// The admin token and calls of the insights process tests, whose graceful stop this one repeats under load.
    static let token = InsightsProcessTests.token

    static func call(_ method: String, _ url: String, _ body: JSONValue?, key: String? = nil) async throws
        -> HTTP.Reply
    {
        try await InsightsProcessTests.call(method, url, body, key: key)
    }

    @Test func sigtermWithHangingReceiversExitsPromptlyAndKeepsTheCounts() async throws {
        try await WebhookReceiver.run { receiver in
            receiver.hang(1000)
            let url = try await TestCluster.shared.makeDatabase()
            let serve = { (extra: [String]) in
                try ServerProcess(
                    ["serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url)] + extra,
                    environment: ["RC_ADMIN_TOKEN": Self.token])
            }
            let first = try serve(["--insights-flush-interval", "3600", "--webhooks-allow-private"])
            let base = "http://127.0.0.1:\(try await first.waitUntilListening())"
            _ = try await Self.call("POST", base + "/v1/projects", ["projectId": "shop-app"])
            for index in 0..<5 {
                let created = try await Self.call(
                    "POST", base + "/v1/projects/shop-app/webhooks",
                    ["url": .string(receiver.url + "?n=\(index)"), "events": ["template.published"]])
                #expect(created.status == 201, "\(created)")
            }
            let published = try await Self.call(
                "PUT", base + "/v1/projects/shop-app/remoteConfig",
                ["parameters": ["require_force_update": ["defaultValue": ["value": "false"]]]])
            #expect(published.status == 200)
            let key = try await Self.call("POST", base + "/v1/apiKeys", ["role": "client", "project": "shop-app"])
            let secret = try #require(try key.decode(APIKey.self).key)
            #expect(try await receiver.waitFor(5, within: .seconds(10)).count == 5, "every attempt hangs")
            for index in 0..<40 {
                let fetch = try await Self.call(
                    "POST", base + "/v1/projects/shop-app/remoteConfig:fetch",
                    ["appInstanceId": "device-\(index)", "platform": "IOS", "appVersion": "2.3.0"], key: secret)
                #expect(fetch.status == 200)
            }

            let start = ContinuousClock.now
            first.signal(SIGTERM)
            #expect(try await first.waitForExit() == 0)
            let took = ContinuousClock.now - start
            // About 2 s on a quiet machine (the streams, the pool, the embedded checks); bounded well below the
            // attempts' 10-s deadline, which it waited for before.
            #expect(took < .seconds(4), "SIGTERM took \(took)")
            #expect(!first.output.contains("kept for the next flush"), "\(first.output)")

            let second = try serve([])
            defer { Task { await second.stop() } }
            let secondBase = "http://127.0.0.1:\(try await second.waitUntilListening())"
            let versions = try await Self.call("GET", secondBase + "/v1/projects/shop-app/insights/versions", nil)
            let report = try versions.decode(InsightsVersionsReport.self)
            #expect(report.platforms.first?.answers == 40, "the last flush's counts: \(versions)")
        }
    }
}
