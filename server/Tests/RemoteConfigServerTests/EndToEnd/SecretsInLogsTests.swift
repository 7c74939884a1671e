import Foundation
import RemoteConfigAPI
import RemoteConfigTestSupport
import Testing

/// No secret a run creates or uses ever reaches the log, even at the most verbose level.
@Suite struct SecretsInLogsTests {
    @Test func aFullRunLogsNoSecret() async throws {
        let url = ServeCommandTests.urlText(try await TestCluster.shared.makeDatabase())
        let token = "rc_admin_secretsTestToken00000000000000"
        let server = try ServerProcess(
            [
                "serve", "--port", "0", "--database-url", url, "--play-token-url", "http://127.0.0.1:9/token",
                "--play-api-url", "http://127.0.0.1:9",
            ],
            environment: ["RC_ADMIN_TOKEN": token, "RC_LOG_LEVEL": "trace"])
        let base = "http://127.0.0.1:\(try await server.waitUntilListening())"
        let admin = ["Authorization": "Bearer \(token)"]
        // The secrets key (the suite's, given as RC_SECRETS_KEY) is one too.
        var secrets = [token, TestSecrets.key]
        _ = try await HTTP.request(
            "POST", base + "/v1/projects", headers: admin, body: HTTP.json(["projectId": "shop-app"]))
        let webhook = try await HTTP.request(
            "POST", base + "/v1/projects/shop-app/webhooks", headers: admin,
            body: HTTP.json(["url": "https://8.8.8.8/hook", "events": ["ping"]]))
        secrets.append(try #require(try webhook.decode(Webhook.self).secret, "\(webhook.text)"))
        for role in ["admin", "editor", "viewer", "client"] {
            let key = try await HTTP.request(
                "POST", base + "/v1/apiKeys", headers: admin,
                body: HTTP.json(["role": .string(role), "project": "shop-app"]))
            secrets.append(try #require(try key.decode(APIKey.self).key))
        }
        let client = secrets[6]
        _ = try await HTTP.request(
            "PUT", base + "/v1/projects/shop-app/remoteConfig",
            headers: ["Authorization": "Bearer \(secrets[4])", "If-Match": "*"],
            body: HTTP.json(["parameters": ["a": ["defaultValue": ["value": "1"]]]]))
        _ = try await HTTP.request(
            "POST", base + "/v1/projects/shop-app/remoteConfig:fetch", headers: ["X-API-Key": client],
            body: HTTP.json(["appInstanceId": "i"]))
        _ = try await HTTP.request(
            "POST", base + "/v1/projects/shop-app/remoteConfig:fetch?key=\(client)",
            body: HTTP.json(["appInstanceId": "i"]))
        _ = try await HTTP.request("GET", base + "/v1/projects", headers: ["Authorization": "Bearer \(secrets[5])"])
        // A Google Play service account's key: saved, refused when broken, and signed with by a sync.
        let account = try TestServiceAccount()
        secrets.append(GooglePlayLinkTests.secretPart(account))
        let play = base + "/v1/projects/shop-app/storeSync/googlePlay"
        let linked = try await HTTP.request(
            "PUT", play, headers: admin,
            body: HTTP.json(["packageName": "com.example.app", "enabled": false, "serviceAccountKey": account.keyFile]))
        #expect(linked.status == 200, "\(linked.text)")
        guard case .object(var broken) = account.keyFile else { return }
        broken["private_key"] = .string(account.pem.replacingOccurrences(of: "MII", with: "AAA"))
        _ = try await HTTP.request(
            "PUT", play, headers: admin,
            body: HTTP.json(["packageName": "com.example.app", "serviceAccountKey": .object(broken)]))
        _ = try await HTTP.request("POST", play + ":run", headers: admin)
        _ = try await HTTP.request(
            "GET", base + "/v1/projects", headers: ["Authorization": "Bearer rc_admin_wrong000000000000000000000000"])
        server.signal(SIGTERM)
        #expect(try await server.waitForExit() == 0)
        let log = server.output
        #expect(log.contains("POST /v1/projects/shop-app/remoteConfig:fetch"), "the run was logged")
        #expect(log.contains("Google Play sync of shop-app failed"), "the Google Play sync was logged")
        for secret in secrets + ["rc_admin_wrong000000000000000000000000"] {
            #expect(!log.contains(secret), "a secret appears in the log: \(secret.prefix(12))…")
        }
    }
}
