import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// `remote-config insights minimum` with the built binary: the recommendation in words, the forecast as a
/// table, `--json` as the route answers, and a bad `--max-blocked` refused before anything is asked.
@Suite struct MinimumVersionCommandTests {
    @Test func theCommandLineSaysHowHighTheMinimumCanGo() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let server = try InsightsProcessTests.serve(url, ["--insights-flush-interval", "1"])
        defer { Task { await server.stop() } }
        let base = "http://127.0.0.1:\(try await server.waitUntilListening())"
        _ = try await InsightsProcessTests.call("POST", base + "/v1/projects", ["projectId": "shop-app"])
        let published = try await InsightsProcessTests.call(
            "PUT", base + "/v1/projects/shop-app/remoteConfig",
            ["parameters": ["min_supported_version": ["defaultValue": ["value": "2.0.0"]]]])
        #expect(published.status == 200)
        let key = try await InsightsProcessTests.call(
            "POST", base + "/v1/apiKeys", ["role": "client", "project": "shop-app"])
        let secret = try #require(try key.decode(APIKey.self).key)
        for index in 0..<40 {
            let version = index < 36 ? "2.3.0" : index < 39 ? "2.1.0" : "1.9.0"
            let fetch = try await InsightsProcessTests.call(
                "POST", base + "/v1/projects/shop-app/remoteConfig:fetch",
                ["appInstanceId": "device-\(index)", "platform": "IOS", "appVersion": .string(version)], key: secret)
            #expect(fetch.status == 200)
        }
        let environment = ["RC_SERVER": base, "RC_TOKEN": InsightsProcessTests.token]
        let arguments = ["insights", "minimum", "-p", "shop-app", "--platform", "ios", "--max-blocked", "5%"]
        // Until the server's one-second flush has written the counts.
        var text = try await CommandLineRun.run(arguments, environment: environment)
        let deadline = ContinuousClock.now + .seconds(20)
        while !text.stdout.contains("about 40 active"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            text = try await CommandLineRun.run(arguments, environment: environment)
        }
        print(text.stdout)
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.contains("Current minimum: 2.0.0 (min_supported_version), blocks 2.5% (about 1)"))
        // 2.1.0 blocks only the one instance on 1.9.0; 2.3.0 would block a tenth.
        #expect(text.stdout.contains("Recommended within 5.0%: 2.1.0, blocks 2.5% (about 1)"), "\(text.stdout)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        let row = try #require(lines.first { $0.hasPrefix("2.3.0") })
        #expect(
            row.split(separator: " ", omittingEmptySubsequences: true) == ["2.3.0", "10.0%", "too", "few", "days", "1"])

        let json = try await CommandLineRun.run(arguments + ["--json"], environment: environment)
        #expect(json.status == 0, "\(json)")
        let report = try APIDecoder.decode(InsightsMinimumVersionReport.self, from: Array(json.stdout.utf8))
        #expect(report.recommended?.version == "2.1.0")
        #expect(report.forecast.map(\.version) == ["2.3.0"])

        let bad = try await CommandLineRun.run(
            ["insights", "minimum", "-p", "shop-app", "--platform", "IOS", "--max-blocked", "150%"],
            environment: environment)
        #expect(bad.status == 1, "\(bad)")
        #expect(bad.stderr.contains("--max-blocked"), "\(bad.stderr)")
    }

    @Test func theCommandLineImportsAStoreExport() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let server = try InsightsProcessTests.serve(url, [])
        defer { Task { await server.stop() } }
        let base = "http://127.0.0.1:\(try await server.waitUntilListening())"
        _ = try await InsightsProcessTests.call("POST", base + "/v1/projects", ["projectId": "shop-app"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let days = (1...2).map { InsightsImportTests.day($0) }
        let csv = folder.appendingPathComponent("import.csv")
        try Data(
            ("date,platform,version,activeInstances\n\(days[1]),IOS,2.1.0,900\n\(days[0]),IOS,2.1.0,950\n"
                + "\(days[0]),ANDROID,3.0.0,40\n").utf8
        ).write(to: csv)
        let environment = ["RC_SERVER": base, "RC_TOKEN": InsightsProcessTests.token]
        let run = try await CommandLineRun.run(
            ["insights", "import", "-p", "shop-app", csv.path], environment: environment)
        print(run.stdout)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == "Imported 3 rows into shop-app: \(days[1]) to \(days[0]), ANDROID, IOS.\n")

        // A bad row: exit 2, its line and field in words, and nothing kept.
        let bad = folder.appendingPathComponent("bad.csv")
        try Data("date,platform,version,activeInstances\n\(days[0]),IOS,2.2.0,5\n\(days[0]),IOS,soon,5\n".utf8).write(
            to: bad)
        let refused = try await CommandLineRun.run(
            ["insights", "import", "-p", "shop-app", bad.path], environment: environment)
        print(refused.stderr)
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.contains("line 3"), "\(refused.stderr)")
        #expect(refused.stderr.contains("lines.3.version"), "\(refused.stderr)")
        let versions = try await InsightsProcessTests.call(
            "GET", base + "/v1/projects/shop-app/insights/versions?platform=IOS", nil)
        #expect(!versions.text.contains("2.2.0"))
        #expect(versions.text.contains("2.1.0"))
    }
}
