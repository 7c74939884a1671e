import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// `remote-config promote` and `template compare` with the built binary: the three-way table in words, the dry
/// run changing nothing, a conflict exiting 3 with the parameter named, and the drift between two projects.
@Suite struct PromoteCommandTests {
    @Test func theCommandLinePromotesStagingIntoProduction() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let server = try InsightsProcessTests.serve(url, [])
        defer { Task { await server.stop() } }
        let base = "http://127.0.0.1:\(try await server.waitUntilListening())"
        for project in ["shop-app", "shop-app-staging"] {
            _ = try await InsightsProcessTests.call("POST", base + "/v1/projects", ["projectId": .string(project)])
        }
        let linked = try await InsightsProcessTests.call(
            "PATCH", base + "/v1/projects/shop-app-staging", ["promotesTo": "shop-app"])
        #expect(linked.status == 200)
        func publish(_ project: String, force: String, minimum: String) async throws {
            let reply = try await InsightsProcessTests.call(
                "PUT", base + "/v1/projects/\(project)/remoteConfig",
                [
                    "parameters": [
                        "require_force_update": ["defaultValue": ["value": .string(force)], "valueType": "BOOLEAN"],
                        "min_supported_version": ["defaultValue": ["value": .string(minimum)]],
                    ]
                ])
            #expect(reply.status == 200, "\(reply)")
        }
        try await publish("shop-app", force: "false", minimum: "1.0.0")
        try await publish("shop-app-staging", force: "true", minimum: "1.0.0")
        let environment = ["RC_SERVER": base, "RC_TOKEN": InsightsProcessTests.token]

        let dry = try await CommandLineRun.run(["promote", "--to", "shop-app", "--dry-run"], environment: environment)
        print(dry.stdout)
        #expect(dry.status == 0, "\(dry)")
        #expect(dry.stdout.contains("From shop-app-staging version 1 into shop-app (no earlier promotion):"))
        #expect(dry.stdout.contains("require_force_update  SOURCE_CHANGED  yes"), "\(dry.stdout)")
        #expect(dry.stdout.contains("(1 unchanged)"))
        #expect(dry.stdout.contains("Dry run: nothing changed."))

        let done = try await CommandLineRun.run(["promote", "--to", "shop-app"], environment: environment)
        #expect(done.status == 0, "\(done)")
        #expect(done.stdout.contains("Published version 2."), "\(done.stdout)")

        // A hotfix in production and another minimum in staging: a conflict, exit 3, the parameter named.
        try await publish("shop-app", force: "true", minimum: "1.0.1")
        try await publish("shop-app-staging", force: "true", minimum: "1.1.0")
        let conflict = try await CommandLineRun.run(
            ["promote", "--from", "shop-app-staging", "--to", "shop-app"], environment: environment)
        print(conflict.stderr)
        #expect(conflict.status == 3, "\(conflict)")
        #expect(conflict.stderr.contains("parameters.min_supported_version: PROMOTION_CONFLICT"), "\(conflict.stderr)")
        #expect(conflict.stderr.contains("promote --only a,b"), "\(conflict.stderr)")

        let compare = try await CommandLineRun.run(
            ["template", "compare", "-p", "shop-app", "--with", "shop-app-staging"], environment: environment)
        print(compare.stdout)
        #expect(compare.status == 0, "\(compare)")
        #expect(compare.stdout.contains("min_supported_version  different"), "\(compare.stdout)")
        #expect(compare.stdout.contains("(1 parameters the same)"))
    }
}
