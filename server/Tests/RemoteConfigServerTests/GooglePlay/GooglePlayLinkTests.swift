import Crypto
import Foundation
import HTTPTypes
import PostgresNIO
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing
import _CryptoExtras

/// Google Play version sync: the link's settings, its write-only key, and what a bad link is told.
@Suite struct GooglePlayLinkTests {
    /// The base64 of the key's body: what must appear nowhere the key could leak to.
    static func secretPart(_ account: TestServiceAccount) -> String {
        let lines = account.pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }
        return String(lines[lines.count / 2])
    }

    @Test func aProjectWithoutALinkShowsTheDefaultsSwitchedOff() async throws {
        try await GooglePlayFixture.shop { app, _ in
            let reply = try await app.call(.get, GooglePlayFixture.path)
            #expect(reply.status == 200)
            let link = try reply.decode(RemoteConfigAPI.GooglePlayLink.self)
            #expect(link.enabled == false && link.track == "production" && link.stagedRollouts == "COMPLETED_ONLY")
            #expect(reply.value["packageName"] == .null && reply.value["serviceAccount"] == .null)
            #expect(reply.headers[.eTag] == #""googlePlay-shop-app-0""#)
            #expect(try await app.call(.post, GooglePlayFixture.run).errorReasons == ["NO_STORE_LINK"])
            #expect(try await app.call(.delete, GooglePlayFixture.path).status == 404)
        }
    }

    @Test func theLinkIsSavedWithItsKeySealedAndTheKeyNeverComesOut() async throws {
        let account = try TestServiceAccount()
        let secret = Self.secretPart(account)
        try await GooglePlayFixture.shop { app, _ in
            let saved = try await app.call(.put, GooglePlayFixture.path, json: GooglePlayFixture.link(account))
            #expect(saved.status == 200, "\(saved.text)")
            let read = try await app.call(.get, GooglePlayFixture.path)
            for reply in [saved, read] {
                let link = try reply.decode(RemoteConfigAPI.GooglePlayLink.self)
                #expect(link.packageName == "com.example.app" && link.condition == "android")
                #expect(
                    link.serviceAccount
                        == .init(clientEmail: account.clientEmail, privateKeyId: account.privateKeyId))
                #expect(
                    link.parameters.targets.map(\.field) == ["versionName", "versionCode", "inAppUpdatePriority"])
                #expect(reply.value["serviceAccountKey"] == nil)
                #expect(!reply.text.contains(secret) && !reply.text.contains("PRIVATE KEY"))
            }
            // The audit log names the account, never the key.
            let audit = try await app.call(.get, "/v1/projects/shop-app/auditLog")
            #expect(audit.text.contains("storeSync.googlePlay.update") && audit.text.contains(account.clientEmail))
            #expect(!audit.text.contains(secret))
            // The database holds it sealed.
            let stored = try await app.database.run { client in
                let rows = try await client.query("SELECT private_key FROM google_play_links")
                var values: [String] = []
                for try await value in rows.decode(String.self) { values.append(value) }
                return values
            }
            #expect(stored.count == 1 && stored[0].hasPrefix("rc-sealed-v1:") && !stored[0].contains(secret))

            // A read sent back as it is keeps the key; the ETag moves with the settings.
            let roundTrip = try await app.call(.put, GooglePlayFixture.path, raw: .init(data: read.body))
            #expect(roundTrip.status == 200, "\(roundTrip.text)")
            #expect(
                try roundTrip.decode(RemoteConfigAPI.GooglePlayLink.self).serviceAccount?.privateKeyId
                    == account.privateKeyId)
            #expect(roundTrip.headers[.eTag] != read.headers[.eTag])
            let stale = try await app.call(
                .put, GooglePlayFixture.path, json: GooglePlayFixture.link(nil),
                headers: [.ifMatch: read.headers[.eTag] ?? ""])
            #expect(stale.status == 412)
            let current = try await app.call(
                .put, GooglePlayFixture.path, json: GooglePlayFixture.link(nil, ["track": "beta"]),
                headers: [.ifMatch: roundTrip.headers[.eTag] ?? ""])
            #expect(current.status == 200 && current.value["track"] == "beta", "\(current.text)")

            // Removed, with its key: the defaults again, and a new link needs a key.
            let removed = try await app.call(.delete, GooglePlayFixture.path)
            #expect(removed.status == 200 && removed.value["packageName"] == .null)
            let count = try await app.database.run { client in
                let rows = try await client.query("SELECT count(*) FROM google_play_links")
                for try await count in rows.decode(Int.self) { return count }
                return -1
            }
            #expect(count == 0)
            let keyless = try await app.call(.put, GooglePlayFixture.path, json: GooglePlayFixture.link(nil))
            #expect(keyless.status == 400 && keyless.errorFields == ["serviceAccountKey"], "\(keyless.text)")
        }
    }

    @Test func aKeyThatIsNotAServiceAccountKeyIsRefusedNamingItsField() async throws {
        let account = try TestServiceAccount()
        let secret = Self.secretPart(account)
        guard case .object(let file) = account.keyFile else { return }
        func without(_ name: String) -> JSONValue {
            var copy = file
            copy[name] = nil
            return .object(copy)
        }
        func with(_ name: String, _ value: JSONValue) -> JSONValue {
            var copy = file
            copy[name] = value
            return .object(copy)
        }
        let ecKey = P256.Signing.PrivateKey().pemRepresentation
        let smallRSA = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024)).pkcs8PEMRepresentation
        let cases: [(JSONValue, String, String)] = [
            (without("client_email"), "serviceAccountKey.client_email", "REQUIRED"),
            (without("private_key"), "serviceAccountKey.private_key", "REQUIRED"),
            (without("private_key_id"), "serviceAccountKey.private_key_id", "REQUIRED"),
            (with("client_email", "not an address"), "serviceAccountKey.client_email", "NOT_AN_EMAIL"),
            (with("type", "authorized_user"), "serviceAccountKey.type", "NOT_A_SERVICE_ACCOUNT_KEY"),
            (with("private_key", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"), "serviceAccountKey.private_key", "NOT_A_PEM_KEY"),
            (with("private_key", .string(ecKey)), "serviceAccountKey.private_key", "NOT_AN_RSA_KEY"),
            (with("private_key", .string(smallRSA)), "serviceAccountKey.private_key", "NOT_AN_RSA_KEY"),
            (
                with("private_key", .string(account.pem.replacingOccurrences(of: secret, with: "AAAA"))),
                "serviceAccountKey.private_key", "NOT_AN_RSA_KEY"
            ),
            ("a key", "serviceAccountKey", "NOT_A_SERVICE_ACCOUNT_KEY"),
        ]
        try await GooglePlayFixture.shop { app, _ in
            for (key, field, reason) in cases {
                let reply = try await app.call(
                    .put, GooglePlayFixture.path, json: GooglePlayFixture.link(nil, ["serviceAccountKey": key]))
                #expect(reply.status == 400, "\(field): \(reply.text)")
                #expect(reply.errorFields == [field] && reply.errorReasons == [reason], "\(reply.text)")
                #expect(!reply.text.contains(secret) && !reply.text.contains("PRIVATE KEY"), "\(reply.text)")
            }
            // Nothing was saved.
            #expect(try await app.call(.get, GooglePlayFixture.path).value["packageName"] == .null)
        }
    }

    @Test func targetsMustBeParametersOfAFittingTypeAndTheConditionMustExist() async throws {
        let account = try TestServiceAccount()
        try await GooglePlayFixture.shop { app, _ in
            let bad = try await app.call(
                .put, GooglePlayFixture.path,
                json: GooglePlayFixture.link(
                    account,
                    [
                        "parameters": [
                            "current_build_android": "versionName", "dark_mode": "versionCode",
                            "missing_one": "userFraction", "whats_new": "releaseNotes",
                            "android_rollout": "userFraction",
                        ],
                        "condition": "huawei",
                    ]))
            #expect(bad.status == 400)
            #expect(
                Set(bad.errorFields)
                    == [
                        "parameters.current_build_android", "parameters.dark_mode", "parameters.missing_one",
                        "condition",
                    ],
                "\(bad.text)")
            #expect(
                Set(bad.errorReasons) == ["WRONG_PARAMETER_TYPE", "PARAMETER_NOT_FOUND", "CONDITION_NOT_FOUND"])
            let fields = try await app.call(
                .put, GooglePlayFixture.path,
                json: GooglePlayFixture.link(
                    account,
                    [
                        "parameters": ["whats_new": "changelog"], "packageName": "example", "track": "pro duction",
                        "stagedRollouts": "ALL", "intervalSeconds": 5, "colour": "blue",
                    ]))
            #expect(
                Set(fields.errorFields)
                    == [
                        "parameters.whats_new", "packageName", "track", "stagedRollouts", "intervalSeconds", "colour",
                    ], "\(fields.text)")
            #expect(try await app.call(.get, GooglePlayFixture.path).value["packageName"] == .null)
            // Codes and numbers go into STRING parameters too; no condition writes the defaults.
            let fine = try await app.call(
                .put, GooglePlayFixture.path,
                json: GooglePlayFixture.link(
                    account, ["parameters": ["whats_new": "versionCode", "android_rollout": "userFraction"]],
                    without: "condition"))
            #expect(fine.status == 200, "\(fine.text)")
            #expect(fine.value["condition"] == .null)
        }
    }

    @Test func onlyAdminsSetTheLinkAndEditorsRunIt() async throws {
        let account = try TestServiceAccount()
        try await GooglePlayFixture.shop { app, _ in
            let editor = try await app.createKey(role: "editor", project: "shop-app")
            let viewer = try await app.createKey(role: "viewer", project: "shop-app")
            let put = try await app.call(
                .put, GooglePlayFixture.path, token: editor.secret, json: GooglePlayFixture.link(account))
            #expect(put.status == 403)
            #expect(
                try await app.call(.put, GooglePlayFixture.path, json: GooglePlayFixture.link(account)).status == 200)
            #expect(try await app.call(.get, GooglePlayFixture.path, token: viewer.secret).status == 200)
            #expect(try await app.call(.post, GooglePlayFixture.run, token: viewer.secret).status == 403)
            #expect(try await app.call(.delete, GooglePlayFixture.path, token: editor.secret).status == 403)
            // The run fails (nothing answers at the tests' token URL) and says so, as an editor may see.
            let run = try await app.call(.post, GooglePlayFixture.run, token: editor.secret)
            #expect(run.status == 200 && run.value["result"] == "FAILED", "\(run.text)")
            #expect(run.value["lastError"]?.stringValue?.contains("token endpoint") == true, "\(run.text)")
        }
    }
}
