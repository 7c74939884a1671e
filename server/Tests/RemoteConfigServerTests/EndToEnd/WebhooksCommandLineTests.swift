import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// `remote-config webhooks …` against the real binary, started with `--webhooks-allow-private` so it may reach
/// a receiver on loopback.
@Suite struct WebhooksCommandLineTests {
    @Test func createListTestAndReadDeliveriesFromTheCommandLine() async throws {
        try await WebhookReceiver.run { receiver in
            let url = try await TestCluster.shared.makeDatabase()
            let server = try ServerProcess(
                ["serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url), "--webhooks-allow-private"],
                environment: ["RC_ADMIN_TOKEN": CommandLineTests.token])
            let base = "http://127.0.0.1:\(try await server.waitUntilListening())"
            defer { Task { await server.stop() } }
            func cli(_ arguments: String...) async throws -> CommandLineRun {
                try await CommandLineRun.run(
                    arguments, environment: ["RC_SERVER": base, "RC_TOKEN": CommandLineTests.token])
            }
            CommandLineTests.expectOK(try await cli("projects", "create", "shop-app"))
            var run = try await cli("webhooks", "create", "-p", "shop-app", "--url", receiver.url, "--event", "ping")
            CommandLineTests.expectOK(run)
            let secret = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(secret.hasPrefix("whsec_"), "\(run)")
            #expect(run.stderr.contains("shown this once"))
            run = try await cli("webhooks", "list", "-p", "shop-app", "--json")
            CommandLineTests.expectOK(run)
            let listed = try APIDecoder.decode(WebhookList.self, from: Array(run.stdout.utf8))
            let name = try #require(listed.webhooks.first?.name)
            #expect(!run.stdout.contains(secret))
            run = try await cli("webhooks", "list", "-p", "shop-app")
            #expect(run.stdout.hasPrefix("WEBHOOK"), "\(run)")
            #expect(run.stdout.contains(receiver.url))

            CommandLineTests.expectOK(try await cli("webhooks", "test", "-p", "shop-app", name))
            let received = try await receiver.waitFor(1)
            #expect(received.first?.value["type"] == "ping")
            let deadline = ContinuousClock.now + .seconds(10)
            repeat {
                run = try await cli("webhooks", "deliveries", "-p", "shop-app", name)
                if run.stdout.contains("DELIVERED") { break }
                try await Task.sleep(for: .milliseconds(200))
            } while ContinuousClock.now < deadline
            #expect(
                run.stdout.contains("ping") && run.stdout.contains("DELIVERED") && run.stdout.contains("204"), "\(run)")

            run = try await cli("webhooks", "show", "-p", "shop-app", name)
            CommandLineTests.expectOK(run)
            #expect(run.stdout.contains(receiver.url) && !run.stdout.contains("whsec_"))
            CommandLineTests.expectOK(try await cli("webhooks", "delete", "-p", "shop-app", name))
            run = try await cli("webhooks", "show", "-p", "shop-app", name)
            #expect(run.status != 0)
        }
    }
}
