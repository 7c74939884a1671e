import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// `remote-config store-sync google-play set|show|run` against the real binary and a Google stand-in.
@Suite struct GooglePlayCommandLineTests {
    @Test func setShowAndRunFromTheCommandLine() async throws {
        let account = try TestServiceAccount()
        try await FakeGooglePlay.run { google in
            google.answer(
                track: FakeGooglePlay.track(releases: [
                    FakeGooglePlay.release("2.4.0", codes: [241], status: "inProgress", userFraction: 0.2),
                    FakeGooglePlay.release("2.3.0", codes: [230], status: "completed"),
                ]))
            let url = try await TestCluster.shared.makeDatabase()
            let server = try ServerProcess(
                [
                    "serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url), "--play-token-url",
                    google.tokenURL, "--play-api-url", google.apiURL,
                ],
                environment: ["RC_ADMIN_TOKEN": CommandLineTests.token])
            let base = "http://127.0.0.1:\(try await server.waitUntilListening())"
            defer { Task { await server.stop() } }
            func cli(_ arguments: String...) async throws -> CommandLineRun {
                try await CommandLineRun.run(
                    arguments, environment: ["RC_SERVER": base, "RC_TOKEN": CommandLineTests.token])
            }
            let folder = NSTemporaryDirectory() + "rc-play-cli-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let keyPath = folder + "/key.json"
            try Data(account.keyFile.jsonString.utf8).write(to: URL(fileURLWithPath: keyPath))
            let templatePath = folder + "/template.json"
            try Data(GooglePlayFixture.template.jsonString.utf8).write(to: URL(fileURLWithPath: templatePath))
            CommandLineTests.expectOK(try await cli("projects", "create", "shop-app"))
            CommandLineTests.expectOK(try await cli("template", "publish", "-p", "shop-app", templatePath, "--force"))

            var run = try await cli("store-sync", "google-play", "show", "-p", "shop-app")
            #expect(run.status == 0 && run.stdout.contains("has no Google Play link"), "\(run)")
            // A new link needs its key; a mapping into the wrong type is the server's 400, exit 2.
            run = try await cli("store-sync", "google-play", "set", "-p", "shop-app", "--package", "com.example.app")
            #expect(run.status == 1 && run.stderr.contains("--key"), "\(run)")
            run = try await cli(
                "store-sync", "google-play", "set", "-p", "shop-app", "--package", "com.example.app", "--key", keyPath,
                "--map", "current_build_android=versionName")
            #expect(run.status == 2 && run.stderr.contains("parameters.current_build_android"), "\(run)")
            run = try await cli(
                "store-sync", "google-play", "set", "-p", "shop-app", "--package", "com.example.app", "--key", keyPath,
                "--condition", "android", "--map", "current_version_android=versionName", "--map",
                "current_build_android=versionCode", "--enabled", "false")
            CommandLineTests.expectOK(run)
            #expect(
                run.stdout.contains("current_build_android ← versionCode") && run.stdout.contains(account.clientEmail))
            #expect(!run.stdout.contains("PRIVATE KEY") && !run.stderr.contains("PRIVATE KEY"))

            run = try await cli("store-sync", "google-play", "run", "-p", "shop-app")
            CommandLineTests.expectOK(run)
            #expect(run.stdout.hasPrefix("Published version 2."), "\(run)")
            #expect(run.stdout.contains("2.3.0 (versionCode 230, completed)"), "\(run)")
            // Changing one setting keeps the rest, the key included.
            run = try await cli("store-sync", "google-play", "set", "-p", "shop-app", "--staged-rollouts", "ANY_LIVE")
            CommandLineTests.expectOK(run)
            #expect(run.stdout.contains("a staged rollout counts") && run.stdout.contains("android"), "\(run)")
            run = try await cli("store-sync", "google-play", "run", "-p", "shop-app", "--json")
            CommandLineTests.expectOK(run)
            let link = try APIDecoder.decode(GooglePlayLink.self, from: Array(run.stdout.utf8))
            #expect(link.liveRelease?.versionCode == "241" && link.result == "PUBLISHED")

            google.fail(.getTrack, .status(403))
            run = try await cli("store-sync", "google-play", "run", "-p", "shop-app")
            #expect(run.status == 5, "\(run)")
            #expect(run.stdout.contains("has no access to the app com.example.app"), "\(run)")
            #expect(google.tokens == 1 && google.editsDeleted == google.editsOpened)
        }
    }
}
