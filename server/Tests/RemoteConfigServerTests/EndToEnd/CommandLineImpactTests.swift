import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// `remote-config template impact`, the built binary against a real server: the impact of a template file in
/// words, and `--max-forced` as a CI gate that fails (exit 7) before a mass force update is published.
@Suite(.serialized) struct CommandLineImpactTests {
    @Test func gatesAMassForceUpdate() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let server = try ServerProcess(
            ["serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url)],
            environment: ["RC_ADMIN_TOKEN": CommandLineTests.token])
        let base = "http://127.0.0.1:\(try await server.waitUntilListening())"
        let folder = NSTemporaryDirectory() + "rc-impact-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            Task { await server.stop() }
        }
        func cli(_ arguments: String...) async throws -> CommandLineRun {
            try await CommandLineRun.run(
                arguments, environment: ["RC_SERVER": base, "RC_TOKEN": CommandLineTests.token])
        }
        func write(_ template: JSONValue, _ name: String) throws -> String {
            let path = folder + "/" + name
            try Data(template.jsonBytes()).write(to: URL(fileURLWithPath: path))
            return path
        }
        #expect(try await cli("projects", "create", "shop-app").status == 0)
        let current = try write(TemplateFixtures.forceUpdateValue(), "current.json")
        let published = try await cli("template", "publish", "-p", "shop-app", current, "--force")
        #expect(published.status == 0, "\(published)")
        try await withRunningDatabase(url: url) { database in
            try await InsightSampleRows.insert(database, project: "shop-app", contexts: ImpactTests.fleet)
        }
        let raised = try write(ImpactTests.raised, "raised.json")

        let shown = try await cli("template", "impact", "-p", "shop-app", raised)
        #expect(shown.status == 0, "\(shown)")
        #expect(
            shown.stdout.contains(
                "This change makes 33.3% of active iOS installs, about 30, required to update: 2.2.1."), "\(shown)")
        #expect(shown.stdout.contains("require_force_update"))
        #expect(shown.stdout.contains("IOS 2.2.1 (30)"))

        let gated = try await cli("template", "impact", "-p", "shop-app", raised, "--max-forced", "10")
        #expect(gated.status == 7, "\(gated)")
        #expect(gated.stderr.contains("more than --max-forced 10%"), "\(gated)")
        #expect(try await cli("template", "impact", "-p", "shop-app", raised, "--max-forced", "30").status == 0)
        // The published template itself forces no one new.
        #expect(try await cli("template", "impact", "-p", "shop-app", current, "--max-forced", "0").status == 0)

        let json = try await cli("template", "impact", "-p", "shop-app", raised, "--json")
        #expect(json.status == 0, "\(json)")
        let report = try APIDecoder.decode(ImpactReport.self, from: Array(json.stdout.utf8))
        #expect(report.forceUpdate.newlyRequired == 30)
        // Printed exactly as before the server wrote the report through the API's coder: keys sorted.
        #expect(json.stdout == (try FoundationPrinting.serverSorted(report)), "\(json.stdout)")

        let broken = ImpactTests.raised(conditions: [["name": "ios_too_old", "expression": "device.os == "]])
        let invalid = try await cli("template", "impact", "-p", "shop-app", try write(broken, "broken.json"))
        #expect(invalid.status == 2, "\(invalid)")
        #expect(try await cli("template", "impact", "-p", "no-such-app", raised).status == 6)
        #expect(try await cli("template", "impact", "-p", "shop-app", raised, "--max-forced", "101").status == 1)
    }
}
