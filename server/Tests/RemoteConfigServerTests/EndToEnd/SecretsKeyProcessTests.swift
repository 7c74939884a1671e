import Foundation
import RemoteConfigAPI
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// The secrets key in the built binary: made in the data dir when none is given, checked against the
/// database at every start, and replaced by `secrets rotate-key` without a webhook noticing.
@Suite struct SecretsKeyProcessTests {
    static let token = "rc_admin_secretsKeyProcessTests000000000"
    /// Two keys, 32 bytes each in base64.
    static let first = Data(repeating: 0x11, count: 32).base64EncodedString()
    static let second = Data((0..<32).map { UInt8($0 * 7 % 256) }).base64EncodedString()

    /// Starts `serve` on `url` with `environment` and `arguments` added; returns the server and its base URL.
    static func start(_ url: DatabaseURL, _ arguments: [String] = [], environment: [String: String]) async throws
        -> (ServerProcess, String)
    {
        let server = try ServerProcess(
            ["serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url), "--webhooks-allow-private"]
                + arguments,
            environment: environment.merging(["RC_ADMIN_TOKEN": token, "RC_LOG_LEVEL": "warning"]) { $1 })
        return (server, "http://127.0.0.1:\(try await server.waitUntilListening())")
    }

    /// Runs `serve` expecting it to stop before it listens; returns its error lines.
    static func refusal(_ url: DatabaseURL, _ arguments: [String] = [], environment: [String: String]) async throws
        -> [String]
    {
        let server = try ServerProcess(
            ["serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url)] + arguments,
            environment: environment.merging(["RC_ADMIN_TOKEN": token]) { $1 })
        let status = try await server.waitForExit(timeout: .seconds(30))
        #expect(status == 1, "\(server.output)")
        #expect(!server.output.contains("listening on"), "\(server.output)")
        return server.output.split(separator: "\n").filter { $0.contains("error") }.map(String.init)
    }

    static func call(_ method: String, _ url: String, _ body: Data? = nil) async throws -> HTTP.Reply {
        try await HTTP.request(
            method, url, headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
            body: body)
    }

    /// Sends a `ping` through the webhook and expects it signed with `secret`.
    static func expectPingSigned(
        _ base: String, _ id: String, _ receiver: WebhookReceiver, count: Int, secret: String
    ) async throws {
        let test = try await call("POST", base + "/v1/projects/shop-app/webhooks/\(id):test")
        #expect(test.status == 200, "\(test.text)")
        let received = try await receiver.waitFor(count, within: .seconds(30))
        let ping = try #require(received.count == count ? received.last : nil)
        #expect(WebhookFixture.signatures(ping) == [WebhookFixture.expectedSignature(ping, secret: secret)])
    }

    static func temporaryFile(_ contents: String) throws -> String {
        let path = ServeCommandTests.temporaryDirectory() + "-key"
        try Data((contents + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aServerGivenAnotherKeyRefusesToStartWithOneLine() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let (server, _) = try await Self.start(url, environment: ["RC_SECRETS_KEY": Self.first])
        defer { Task { await server.stop() } }
        let lines = try await Self.refusal(url, environment: ["RC_SECRETS_KEY": Self.second])
        #expect(lines.count == 1, "\(lines)")
        let line = lines.first ?? ""
        #expect(line.contains("--secrets-key-file / RC_SECRETS_KEY") && line.contains("another key"), "\(line)")
        #expect(!line.contains(Self.second) && !line.contains(Self.first), "the line shows a key")
        // The same from a file.
        let file = try Self.temporaryFile(Self.second)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let fromFile = try await Self.refusal(url, ["--secrets-key-file", file], environment: [:])
        #expect(fromFile.count == 1 && fromFile.first?.contains("another key") == true, "\(fromFile)")
        #expect(server.isRunning)
    }

    @Test func withoutAKeyTheFirstStartMakesOneInTheDataDirReadableByItsOwnerOnly() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let dataDir = ServeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        // No key given (an empty variable is none).
        let none = ["RC_SECRETS_KEY": "", "RC_DATA_DIR": dataDir]
        let (first, _) = try await Self.start(url, environment: none)
        let path = dataDir + "/secrets-key"
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600, "mode \(String(mode ?? 0, radix: 8))")
        let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Data(base64Encoded: text)?.count == 32, "\(text.count) characters")
        #expect(!first.output.contains(text), "the key was printed")
        await first.stop()
        // The next start uses it, and leaves it as it was.
        let (again, _) = try await Self.start(url, environment: none)
        await again.stop()
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains(text))
        // It is the database's key now: another is refused.
        let lines = try await Self.refusal(url, environment: ["RC_SECRETS_KEY": Self.first])
        #expect(lines.count == 1 && lines.first?.contains("another key") == true, "\(lines)")
    }

    @Test func signaturesVerifyAfterARestartAndAfterRotateKey() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let newKey = try Self.temporaryFile(Self.second)
        defer { try? FileManager.default.removeItem(atPath: newKey) }
        try await WebhookReceiver.run { receiver in
            let old = ["RC_SECRETS_KEY": Self.first]
            var (server, base) = try await Self.start(url, environment: old)
            #expect(
                try await Self.call(
                    "POST", base + "/v1/projects", try HTTP.encoded(CreateProjectRequest(projectId: "shop-app"))
                ).status == 201)
            let created = try await Self.call(
                "POST", base + "/v1/projects/shop-app/webhooks",
                try HTTP.encoded(WebhookRequest(url: receiver.url, events: ["ping"])))
            let webhook = try created.decode(RemoteConfigAPI.Webhook.self)
            let secret = try #require(webhook.secret)
            try await Self.expectPingSigned(base, webhook.id, receiver, count: 1, secret: secret)
            await server.stop()

            (server, base) = try await Self.start(url, environment: old)
            try await Self.expectPingSigned(base, webhook.id, receiver, count: 2, secret: secret)
            await server.stop()

            let rotate = try ServerProcess(
                ["secrets", "rotate-key", "--database-url", ServeCommandTests.urlText(url), "--new-key-file", newKey],
                environment: old)
            #expect(try await rotate.waitForExit() == 0, "\(rotate.output)")
            #expect(rotate.output.contains("re-encrypted"), "\(rotate.output)")
            #expect(!rotate.output.contains(Self.second) && !rotate.output.contains(Self.first))

            // The old key opens nothing now; the new one opens everything.
            let refused = try await Self.refusal(url, environment: old)
            #expect(refused.count == 1 && refused.first?.contains("another key") == true, "\(refused)")
            (server, base) = try await Self.start(url, ["--secrets-key-file", newKey], environment: [:])
            try await Self.expectPingSigned(base, webhook.id, receiver, count: 3, secret: secret)
            await server.stop()
        }
    }
}
