import Foundation
import Logging
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// A Google Play link's key at rest: sealed in the database, sealed again by `secrets rotate-key`, and still the
/// key the server signs with after a restart under the new secrets key.
@Suite struct GooglePlaySecretsTests {
    @Test func theKeyIsSealedAtRestAndRotatedWithEveryOtherSecret() async throws {
        let account = try TestServiceAccount()
        let secret = GooglePlayLinkTests.secretPart(account)
        let newKey = try SecretSealer(base64: SecretSealer.newKey())
        try await FakeGooglePlay.run { google in
            google.answer(
                track: FakeGooglePlay.track(releases: [
                    FakeGooglePlay.release("2.4.0", codes: [241], status: "completed")
                ]))
            let url = try await TestClusterURL.make()
            let configure: @Sendable (inout ServerConfiguration) -> Void = {
                [tokenURL = google.tokenURL, apiURL = google.apiURL] in
                $0.playTokenURL = tokenURL
                $0.playAPIURL = apiURL
            }
            try await TestApp.run(url: url, configure: configure) { app in
                try await app.createProject("shop-app")
                try await app.publish("shop-app", GooglePlayFixture.template)
                let saved = try await app.call(.put, GooglePlayFixture.path, json: GooglePlayFixture.link(account))
                try #require(saved.status == 200, "\(saved.text)")
                let dump = try SecretsAtRestTests.dump(url)
                #expect(dump.contains("rc-sealed-v1:") && !dump.contains(secret), "the dump shows the key")

                // Rotated while this server runs with the old key: the impact sample's key and the Play key.
                let count = try await ServerSecrets.rotate(
                    url, from: TestSecrets.sealer, to: newKey, logger: SecretsAtRestTests.logger)
                #expect(count == 2)
                // This server can no longer seal a new key under the old one, nor open the stored one.
                let other = try TestServiceAccount()
                let refused = try await app.call(.put, GooglePlayFixture.path, json: GooglePlayFixture.link(other))
                #expect(refused.status == 503, "\(refused.text)")
                let run = try await app.call(.post, GooglePlayFixture.run)
                #expect(run.value["result"] == "FAILED", "\(run.text)")
                #expect(
                    run.value["lastError"]?.stringValue?.contains("does not open with this server's secrets key")
                        == true)
            }
            // Restarted with the new key, the server signs with the key it had.
            try await TestApp.run(url: url, secretsKey: newKey, configure: configure) { restarted in
                let run = try await restarted.call(.post, GooglePlayFixture.run)
                #expect(run.value["result"] == "PUBLISHED", "\(run.text)")
                #expect(
                    run.value["serviceAccount"]?["privateKeyId"] == .string(account.privateKeyId), "\(run.text)")
                try GooglePlaySyncTests.checkAssertion(
                    try #require(google.assertions.last), account, audience: google.tokenURL)
            }
        }
    }
}
