import Foundation
import RemoteConfigAPI
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// `remote-config rollouts …` against the real binary: tables for people, `--json` for scripts, and the
/// documented exit statuses.
@Suite struct RolloutsCommandLineTests {
    @Test func createWatchPauseResumeHaltFromTheCommandLine() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let server = try ServerProcess(
            ["serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url)],
            environment: ["RC_ADMIN_TOKEN": CommandLineTests.token])
        let base = "http://127.0.0.1:\(try await server.waitUntilListening())"
        defer { Task { await server.stop() } }
        func cli(_ arguments: String..., token: String = CommandLineTests.token) async throws -> CommandLineRun {
            try await CommandLineRun.run(arguments, environment: ["RC_SERVER": base, "RC_TOKEN": token])
        }
        CommandLineTests.expectOK(try await cli("projects", "create", "shop-app"))
        let published = try await HTTP.request(
            "PUT", base + "/v1/projects/shop-app/remoteConfig",
            headers: ["Authorization": "Bearer \(CommandLineTests.token)", "If-Match": "*"],
            body: HTTP.json(RolloutFixture.template))
        #expect(published.status == 200)

        var run = try await cli(
            "rollouts", "create", "-p", "shop-app", "--parameter", "new_checkout", "--value", "true", "--step",
            "1:3600",
            "--step", "10:3600", "--step", "100", "--audience", "device.os == 'ios'")
        CommandLineTests.expectOK(run)
        #expect(run.stdout.hasPrefix("rch_"), "the halt token on stdout: \(run)")
        #expect(run.stderr.contains("shown this once"))

        run = try await cli("rollouts", "list", "-p", "shop-app")
        CommandLineTests.expectOK(run)
        #expect(run.stdout.hasPrefix("ROLLOUT"), "\(run)")
        #expect(run.stdout.contains("RUNNING") && run.stdout.contains("1/3") && run.stdout.contains("1%"))
        run = try await cli("rollouts", "list", "-p", "shop-app", "--json")
        CommandLineTests.expectOK(run)
        let listed = try APIDecoder.decode(RolloutList.self, from: Array(run.stdout.utf8))
        // Printed exactly as before the answers went through the API's coder: keys sorted, Foundation's layout.
        #expect(run.stdout == (try FoundationPrinting.pretty(listed)), "\(run.stdout)")
        let rollout = try #require(listed.rollouts.first)
        #expect(rollout.haltToken == nil, "shown only at creation")
        #expect(rollout.audience == "device.os == 'ios'")

        run = try await cli("rollouts", "pause", "-p", "shop-app", rollout.name)
        CommandLineTests.expectOK(run)
        #expect(run.stdout.contains("PAUSED (MANUAL)"), "\(run)")
        CommandLineTests.expectOK(try await cli("rollouts", "resume", "-p", "shop-app", rollout.name))
        run = try await cli("rollouts", "show", "-p", "shop-app", rollout.name, "--json")
        CommandLineTests.expectOK(run)
        let shown = try APIDecoder.decode(Rollout.self, from: Array(run.stdout.utf8))
        #expect(shown.state == "RUNNING")
        #expect(run.stdout == (try FoundationPrinting.pretty(shown)), "\(run.stdout)")
        run = try await cli("rollouts", "halt", "-p", "shop-app", String(rollout.name.dropFirst("rollouts/".count)))
        CommandLineTests.expectOK(run)
        #expect(run.stdout.contains("HALTED") && run.stdout.contains("Ended by version 3"), "\(run)")

        // The documented exit statuses.
        #expect(try await cli("rollouts", "complete", "-p", "shop-app", rollout.name).status == 3, "halted: conflict")
        #expect(try await cli("rollouts", "show", "-p", "shop-app", "rollouts/999").status == 6)
        run = try await cli(
            "rollouts", "create", "-p", "shop-app", "--parameter", "new_checkout", "--value", "maybe", "--step", "10")
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr.contains("value"), "\(run)")
        #expect(
            try await cli(
                "rollouts", "create", "-p", "shop-app", "--parameter", "new_checkout", "--value", "true", "--step",
                "ten"
            ).status == 1)
        let viewer = try await cli("keys", "create", "--role", "viewer", "--project", "shop-app")
        let viewerToken = viewer.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            try await cli("rollouts", "halt", "-p", "shop-app", rollout.name, token: viewerToken).status == 4,
            "\(viewer)")
    }

    @Test func listFollowsEveryPage() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let server = try ServerProcess(
            ["serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url)],
            environment: ["RC_ADMIN_TOKEN": CommandLineTests.token])
        let base = "http://127.0.0.1:\(try await server.waitUntilListening())"
        defer { Task { await server.stop() } }
        func cli(_ arguments: String...) async throws -> CommandLineRun {
            try await CommandLineRun.run(
                arguments, environment: ["RC_SERVER": base, "RC_TOKEN": CommandLineTests.token])
        }
        CommandLineTests.expectOK(try await cli("projects", "create", "shop-app"))
        // More than the server's largest page, and more than it used to answer at all.
        try await ScheduledPublishTests.execute(
            """
            INSERT INTO rollouts (project_id, parameter, value, steps, state, halt_token_hash, author_name, ended_at)
            SELECT 'shop-app', 'banner', 'old ' || n, '[{"percent": 10}]', 'HALTED',
                sha256(convert_to('token ' || n, 'UTF8')), 'release bot', now()
            FROM generate_series(1, 1005) AS n
            """, on: url)

        var run = try await cli("rollouts", "list", "-p", "shop-app", "--json")
        CommandLineTests.expectOK(run)
        let listed = try APIDecoder.decode(RolloutList.self, from: Array(run.stdout.utf8))
        #expect(listed.rollouts.count == 1005)
        #expect(Set(listed.rollouts.map(\.name)).count == 1005)
        #expect(listed.nextPageToken == nil)
        run = try await cli("rollouts", "list", "-p", "shop-app")
        CommandLineTests.expectOK(run)
        #expect(run.stdout.split(separator: "\n").count == 1006, "a heading and every rollout")
        run = try await cli("rollouts", "list", "-p", "shop-app", "--limit", "10")
        CommandLineTests.expectOK(run)
        #expect(run.stdout.split(separator: "\n").count == 11)
        #expect(run.stderr.contains("more rollouts follow"), "\(run)")
    }
}
