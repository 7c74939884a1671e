import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// Insights with the built binary: counts made before a graceful stop are in the database after it (the
/// flush interval is an hour, so only the stop's own flush can have written them), and the command line
/// shows them.
@Suite struct InsightsProcessTests {
    static let token = "rc_admin_insightsProcessToken000000000000"

    static func serve(_ url: DatabaseURL, _ extra: [String] = []) throws -> ServerProcess {
        try ServerProcess(
            ["serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url)] + extra,
            environment: ["RC_ADMIN_TOKEN": token])
    }

    static func call(_ method: String, _ url: String, _ body: JSONValue?, key: String? = nil) async throws
        -> HTTP.Reply
    {
        var headers = ["Content-Type": "application/json", "If-Match": "*"]
        if let key { headers["X-API-Key"] = key } else { headers["Authorization"] = "Bearer \(token)" }
        return try await HTTP.request(method, url, headers: headers, body: body.map(HTTP.json))
    }

    @Test func aGracefulStopLosesNoCountsAndTheCommandLineShowsThem() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let first = try Self.serve(url, ["--insights-flush-interval", "3600"])
        let base = "http://127.0.0.1:\(try await first.waitUntilListening())"
        _ = try await Self.call("POST", base + "/v1/projects", ["projectId": "shop-app"])
        let published = try await Self.call(
            "PUT", base + "/v1/projects/shop-app/remoteConfig",
            ["parameters": ["require_force_update": ["defaultValue": ["value": "false"]]]])
        #expect(published.status == 200)
        let key = try await Self.call("POST", base + "/v1/apiKeys", ["role": "client", "project": "shop-app"])
        let secret = try #require(try key.decode(APIKey.self).key)
        for index in 0..<40 {
            let version = index < 30 ? "2.3.0" : "2.2.1"
            let fetch = try await Self.call(
                "POST", base + "/v1/projects/shop-app/remoteConfig:fetch",
                ["appInstanceId": "device-\(index)", "platform": "IOS", "appVersion": .string(version)], key: secret)
            #expect(fetch.status == 200)
        }
        first.signal(SIGTERM)
        #expect(try await first.waitForExit() == 0)

        let second = try Self.serve(url)
        defer { Task { await second.stop() } }
        let secondBase = "http://127.0.0.1:\(try await second.waitUntilListening())"
        let environment = ["RC_SERVER": secondBase, "RC_TOKEN": Self.token]
        let table = try await CommandLineRun.run(
            ["insights", "versions", "-p", "shop-app"], environment: environment)
        #expect(table.status == 0, "\(table)")
        #expect(table.stdout.contains("IOS: about 40 active instances, 40 answers"), "\(table.stdout)")
        let lines = table.stdout.split(separator: "\n").map(String.init)
        let newest = try #require(lines.firstIndex { $0.hasPrefix("2.3.0") })
        #expect(lines[newest].split(separator: " ", omittingEmptySubsequences: true) == ["2.3.0", "30", "75.0%", "30"])
        #expect(lines[newest + 1].hasPrefix("2.2.1"))
        print(table.stdout)

        let json = try await CommandLineRun.run(
            ["insights", "versions", "-p", "shop-app", "--platform", "ios", "--json"], environment: environment)
        #expect(json.status == 0, "\(json)")
        let report = try APIDecoder.decode(InsightsVersionsReport.self, from: Array(json.stdout.utf8))
        #expect(report.platforms.first?.activeInstances == 40)
        // Printed exactly as before the report went through the API's coder: keys sorted, Foundation's layout.
        #expect(json.stdout == (try FoundationPrinting.pretty(report)), "\(json.stdout)")
        let parametersJSON = try await CommandLineRun.run(
            ["insights", "parameters", "-p", "shop-app", "--json"], environment: environment)
        #expect(parametersJSON.status == 0, "\(parametersJSON)")
        let parametersReport = try APIDecoder.decode(
            InsightsParametersReport.self, from: Array(parametersJSON.stdout.utf8))
        #expect(parametersReport.parameters["require_force_update"]?.sources.first?.answers == 40)
        #expect(parametersJSON.stdout == (try FoundationPrinting.pretty(parametersReport)), "\(parametersJSON.stdout)")

        let parameters = try await CommandLineRun.run(
            ["insights", "parameters", "-p", "shop-app"], environment: environment)
        #expect(parameters.status == 0, "\(parameters)")
        #expect(parameters.stdout.contains("require_force_update  DEFAULT  40       100.0%"), "\(parameters.stdout)")
        print(parameters.stdout)

        let bad = try await CommandLineRun.run(
            ["insights", "versions", "-p", "shop-app", "--since", "last week"], environment: environment)
        #expect(bad.status == 2, "\(bad)")
        #expect(bad.stderr.contains("since"), "\(bad.stderr)")
    }

    /// A shop with one published parameter and a client key on the server at `base`; returns the key.
    static func shop(_ base: String) async throws -> String {
        _ = try await call("POST", base + "/v1/projects", ["projectId": "shop-app"])
        _ = try await call(
            "PUT", base + "/v1/projects/shop-app/remoteConfig",
            ["parameters": ["require_force_update": ["defaultValue": ["value": "false"]]]])
        let key = try await call("POST", base + "/v1/apiKeys", ["role": "client", "project": "shop-app"])
        return try #require(try key.decode(APIKey.self).key)
    }

    @Test func aServerKilledWithoutWarningLosesAtMostOneInterval() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let first = try Self.serve(url, ["--insights-flush-interval", "0.3"])
        let base = "http://127.0.0.1:\(try await first.waitUntilListening())"
        let secret = try await Self.shop(base)
        for index in 0..<10 {
            _ = try await Self.call(
                "POST", base + "/v1/projects/shop-app/remoteConfig:fetch",
                ["appInstanceId": "device-\(index)", "platform": "WEB", "appVersion": "1.0"], key: secret)
        }
        // Two intervals and more: the counts are written; then no graceful stop at all.
        try await Task.sleep(for: .seconds(1.5))
        first.signal(SIGKILL)
        _ = try await first.waitForExit()
        let second = try Self.serve(url)
        defer { Task { await second.stop() } }
        let secondBase = "http://127.0.0.1:\(try await second.waitUntilListening())"
        let report = try await Self.call("GET", secondBase + "/v1/projects/shop-app/insights/versions", nil)
        let platforms = try APIDecoder.decode(InsightsVersionsReport.self, from: [UInt8](report.body)).platforms
        #expect(platforms.first?.answers == 10, "\(String(decoding: report.body, as: UTF8.self))")
    }

    @Test func insightsOffByVariableCountsNothing() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let server = try ServerProcess(
            ["serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url)],
            environment: ["RC_ADMIN_TOKEN": Self.token, "RC_INSIGHTS": "off", "RC_INSIGHTS_FLUSH_INTERVAL": "0.2"])
        defer { Task { await server.stop() } }
        let base = "http://127.0.0.1:\(try await server.waitUntilListening())"
        let secret = try await Self.shop(base)
        let fetch = try await Self.call(
            "POST", base + "/v1/projects/shop-app/remoteConfig:fetch", ["appInstanceId": "a", "platform": "WEB"],
            key: secret)
        #expect(fetch.status == 200)
        try await Task.sleep(for: .seconds(0.6))
        let report = try await Self.call("GET", base + "/v1/projects/shop-app/insights/versions", nil)
        #expect(report.status == 200)
        let off = try APIDecoder.decode(InsightsVersionsReport.self, from: [UInt8](report.body))
        #expect(off.enabled == false)
        #expect(off.platforms.isEmpty)
        let bad = try ServerProcess(
            ["serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url), "--insights", "maybe"])
        #expect(try await bad.waitForExit() == 1)
    }
}
