import Foundation
import Logging
import PostgresNIO
import RemoteConfigAPI
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// Webhook signing secrets are sealed in the database: a dump of it alone shows none, secrets stored in plain
/// text by an earlier release are sealed at the first start, and deliveries are still signed with them.
@Suite struct SecretsAtRestTests {
    static let logger: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return logger
    }()

    /// Runs `sql`, one statement a string, on the database at `url`.
    static func execute(_ url: DatabaseURL, _ statements: [String]) async throws {
        try await PostgresConnectionHandle.with(url, logger: logger) { handle in
            for sql in statements {
                try await handle.connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            }
        }
    }

    /// Each webhook's stored `secret` and `previous_secret`, as the table holds them.
    static func storedSecrets(_ url: DatabaseURL) async throws -> [String: (current: String, previous: String?)] {
        try await PostgresConnectionHandle.with(url, logger: logger) { handle in
            var found: [String: (current: String, previous: String?)] = [:]
            let rows = try await handle.connection.query(
                "SELECT webhook_id, secret, previous_secret FROM webhooks", logger: logger)
            for try await (id, secret, previous) in rows.decode((String, String, String?).self) {
                found[id] = (secret, previous)
            }
            return found
        }
    }

    /// The whole database as `pg_dump` writes it, rows included.
    static func dump(_ url: DatabaseURL) throws -> String {
        guard case .unixSocket(let socket) = url.endpoint else { throw ServerProcess.Failure("not a socket") }
        let directory = URL(fileURLWithPath: socket).deletingLastPathComponent().path
        // Beside the server programs, wherever a link to them points.
        let postgres = URL(fileURLWithPath: try PostgresBinaries.locate().directory + "/postgres")
        return try ProcessRunner.run(
            postgres.resolvingSymlinksInPath().deletingLastPathComponent().path + "/pg_dump",
            ["--host", directory, "--username", url.username, "--dbname", url.database, "--no-owner"])
    }

    @Test func aDumpOfTheDatabaseShowsNoWebhookSecret() async throws {
        let url = try await TestClusterURL.make()
        let (id, secrets) = try await TestApp.run(url: url, configure: WebhookFixture.allowPrivate) { app in
            let (id, first) = try await WebhookFixture.setUp(app, url: "https://hooks.example.com/rc")
            let second = try #require(try await app.admin.rotateWebhookSecret(WebhookFixture.project, id).secret)
            return (id, [first, second])
        }
        #expect(secrets.allSatisfy { $0.hasPrefix("whsec_") && $0.count == 70 })
        let stored = try #require(try await Self.storedSecrets(url)[id])
        // The current secret and the one it replaced, both sealed.
        #expect(stored.current.hasPrefix("rc-sealed-v1:"), "\(stored.current)")
        #expect(stored.previous?.hasPrefix("rc-sealed-v1:") == true, "\(stored.previous ?? "nil")")
        let dump = try Self.dump(url)
        #expect(dump.contains("COPY public.webhooks"), "the dump holds the webhooks table")
        for secret in secrets {
            #expect(!dump.contains(secret), "the dump shows \(secret)")
            #expect(!dump.contains(secret.dropFirst("whsec_".count)), "the dump shows the hex of \(secret)")
        }
    }

    @Test func plainTextSecretsFromBeforeAreSealedAtTheFirstStartAndStillSign() async throws {
        let url = try await TestClusterURL.make()
        let current = "whsec_" + String(repeating: "c0", count: 32)
        let previous = "whsec_" + String(repeating: "9f", count: 32)
        try await WebhookReceiver.run { receiver in
            // As a release that kept secrets as they are left them.
            try await Self.execute(
                url,
                [
                    "INSERT INTO projects (project_id) VALUES ('shop-app')",
                    """
                    INSERT INTO webhooks (webhook_id, project_id, url, events, secret, previous_secret,
                        previous_expires_at)
                    VALUES ('00112233aabbccdd', 'shop-app', '\(receiver.url)', '{*}', '\(current)', '\(previous)',
                        now() + interval '1 hour')
                    """,
                ])
            try await TestApp.run(url: url, configure: WebhookFixture.fast) { app in
                let stored = try #require(try await Self.storedSecrets(url)["00112233aabbccdd"])
                #expect(stored.current.hasPrefix("rc-sealed-v1:") && !stored.current.contains(current))
                #expect(stored.previous?.hasPrefix("rc-sealed-v1:") == true)
                let test = try await app.call(.post, "\(WebhookFixture.collection)/00112233aabbccdd:test")
                #expect(test.status == 200, "\(test.text)")
                let ping = try #require(try await receiver.waitFor(1).first)
                let signatures = WebhookFixture.signatures(ping)
                #expect(signatures.count == 2)
                #expect(signatures.contains(WebhookFixture.expectedSignature(ping, secret: current)))
                #expect(signatures.contains(WebhookFixture.expectedSignature(ping, secret: previous)))
            }
            let sealed = try await Self.storedSecrets(url)
            // A second start finds nothing left to seal and leaves the sealed values as they are.
            try await TestApp.run(url: url) { _ in }
            let again = try await Self.storedSecrets(url)
            #expect(again["00112233aabbccdd"]?.current == sealed["00112233aabbccdd"]?.current)
            #expect(again["00112233aabbccdd"]?.previous == sealed["00112233aabbccdd"]?.previous)
        }
    }

    @Test func aServerWhoseKeyWasRotatedAwaySealsNothingUnderIt() async throws {
        let url = try await TestClusterURL.make()
        let newKey = try SecretSealer(base64: SecretSealer.newKey())
        try await TestApp.run(url: url, configure: WebhookFixture.allowPrivate) { app in
            let (id, secret) = try await WebhookFixture.setUp(app, url: "https://hooks.example.com/rc")
            // Rotated by `secrets rotate-key` while this server still runs with the old key: the webhook's secret
            // and the impact sample's key.
            #expect(try await ServerSecrets.rotate(url, from: TestSecrets.sealer, to: newKey, logger: Self.logger) == 2)
            let created = try await app.call(
                .post, WebhookFixture.collection,
                body: WebhookRequest(url: "https://hooks.example.com/other", events: ["*"]))
            #expect(created.status == 503, "\(created.text)")
            let rotated = try await app.call(.post, "\(WebhookFixture.collection)/\(id):rotateSecret")
            #expect(rotated.status == 503, "\(rotated.text)")
            #expect(try await Self.storedSecrets(url).count == 1)
            // Restarted with the new key, the webhook signs with the secret it had.
            try await TestApp.run(url: url, secretsKey: newKey) { restarted in
                let webhook = try await restarted.environment.stores.webhooks.get(WebhookFixture.project, id)
                #expect(webhook?.activeSecrets == [secret])
            }
        }
    }

    @Test func aRotationThatCannotOpenEverySecretChangesNothing() async throws {
        let url = try await TestClusterURL.make()
        try await TestApp.run(url: url, configure: WebhookFixture.allowPrivate) { app in
            let (first, _) = try await WebhookFixture.setUp(app, url: "https://hooks.example.com/one")
            _ = try await app.admin.createWebhook(
                WebhookFixture.project, WebhookRequest(url: "https://hooks.example.com/two", events: ["*"]))
            // A sealed value copied into another row is not that row's: it does not open there.
            try await Self.execute(
                url,
                [
                    """
                    UPDATE webhooks SET previous_secret = (SELECT secret FROM webhooks WHERE webhook_id = '\(first)')
                    WHERE webhook_id <> '\(first)'
                    """
                ])
        }
        let before = try await Self.storedSecrets(url)
        let newKey = try SecretSealer(base64: SecretSealer.newKey())
        await #expect(throws: SealedSecretError.self) {
            try await ServerSecrets.rotate(url, from: TestSecrets.sealer, to: newKey, logger: Self.logger)
        }
        let after = try await Self.storedSecrets(url)
        #expect(
            after.mapValues { "\($0.current) \($0.previous ?? "")" }
                == before.mapValues {
                    "\($0.current) \($0.previous ?? "")"
                })
        // The old key still opens the database: start-up with it passes the key check.
        _ = try await TestSecrets.prepare(url)
    }

    @Test func theImpactSamplesKeyIsSealedAndTheSameForEveryServerOfTheDatabase() async throws {
        let url = try await TestClusterURL.make()
        let first = try await TestApp.run(url: url) { $0.environment.stores.secrets.sampleKey }
        let second = try await TestApp.run(url: url) { $0.environment.stores.secrets.sampleKey }
        #expect(first == second)
        let elsewhere = try await TestApp.run(url: try await TestClusterURL.make()) {
            $0.environment.stores.secrets.sampleKey
        }
        #expect(elsewhere != first, "each database makes its own")
        let dump = try Self.dump(url)
        #expect(dump.contains("impact_sample_key\trc-sealed-v1:"), "the dump holds the sealed row")
        let bytes = Data(first.bytes)
        #expect(!dump.contains(bytes.base64EncodedString()))
        #expect(!dump.contains(bytes.map { String(format: "%02x", $0) }.joined()))
        #expect(!dump.contains(String(first.k0)) && !dump.contains(String(first.k1)))
    }
}
