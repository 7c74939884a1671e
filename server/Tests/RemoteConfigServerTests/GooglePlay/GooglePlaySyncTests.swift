import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing
import _CryptoExtras

@testable import RemoteConfigServer

/// Google Play version sync against a loopback stand-in of Google's token endpoint and edits API: what is
/// asked of Google, which release counts, and what is published.
@Suite struct GooglePlaySyncTests {
    /// A track with a release in every status, as a staged rollout over a completed release looks.
    static let everyStatus = FakeGooglePlay.track(releases: [
        FakeGooglePlay.release("2.5.0", codes: [251], status: "draft"),
        FakeGooglePlay.release(
            "2.4.0", codes: [240, 241], status: "inProgress", userFraction: 0.2, priority: 4,
            notes: [("ja-JP", "バグ修正"), ("en-US", "Wish lists.")]),
        FakeGooglePlay.release("2.3.9", codes: [239], status: "halted", userFraction: 0.05),
        FakeGooglePlay.release(
            "2.3.0", codes: [230], status: "completed", priority: 2, notes: [("de-DE", "Fehlerbehebungen")]),
    ])

    /// Decodes one base64url part of a JWT.
    static func part(_ text: Substring) throws -> JSONValue {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return try JSONValue(parsing: try #require(Data(base64Encoded: base64)))
    }

    /// Checks `jwt` as Google's token endpoint does: RS256 under the account's public key, its `kid`, and every
    /// claim of "Using OAuth 2.0 for Server to Server Applications".
    static func checkAssertion(_ jwt: String, _ account: TestServiceAccount, audience: String) throws {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        let header = try part(parts[0])
        #expect(header["alg"] == "RS256" && header["typ"] == "JWT")
        #expect(header["kid"] == .string(account.privateKeyId))
        var base64 = parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let signature = _RSA.Signing.RSASignature(rawRepresentation: try #require(Data(base64Encoded: base64)))
        let signed = Data("\(parts[0]).\(parts[1])".utf8)
        #expect(account.privateKey.publicKey.isValidSignature(signature, for: signed, padding: .insecurePKCS1v1_5))
        let claims = try part(parts[1])
        #expect(claims["iss"] == .string(account.clientEmail))
        #expect(claims["scope"] == "https://www.googleapis.com/auth/androidpublisher")
        #expect(claims["aud"] == .string(audience))
        let iat = try #require(claims["iat"]?.intValue)
        let exp = try #require(claims["exp"]?.intValue)
        #expect(abs(Double(iat) - Date().timeIntervalSince1970) < 120)
        #expect(exp > iat && exp - iat <= 3600)
        #expect(Set(claims.dictionaryValue?.keys.map { $0 } ?? []) == ["iss", "scope", "aud", "iat", "exp"])
    }

    /// Links `shop-app` to `google` with `extra` settings, then runs `body`.
    static func linked(
        _ google: FakeGooglePlay, _ account: TestServiceAccount, _ extra: JSONObject = [:],
        configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable @escaping (TestApp.Session, String) async throws -> Void
    ) async throws {
        try await GooglePlayFixture.shop(google, configure: configure) { app, key in
            let saved = try await app.call(.put, GooglePlayFixture.path, json: GooglePlayFixture.link(account, extra))
            try #require(saved.status == 200, "\(saved.text)")
            try await body(app, key)
        }
    }

    @Test func aSyncPublishesTheCompletedReleaseIntoTheAndroidConditionAndAsksGoogleAsItDocuments() async throws {
        let account = try TestServiceAccount()
        try await FakeGooglePlay.run { google in
            google.answer(track: Self.everyStatus)
            try await Self.linked(google, account) { app, key in
                let run = try await app.call(.post, GooglePlayFixture.run)
                #expect(run.status == 200 && run.value["result"] == "PUBLISHED", "\(run.text)")
                #expect(run.value["lastError"] == .null, "\(run.text)")
                #expect(
                    run.value["liveRelease"] == [
                        "name": "2.3.0", "versionCode": "230", "status": "completed",
                        "userFraction": .null,
                    ])
                let android = try await GooglePlayFixture.androidEntries(app, key)
                #expect(android["current_version_android"] == "2.3.0")
                #expect(android["current_build_android"] == "230")
                #expect(android["android_update_priority"] == "2")
                // iOS keeps the defaults: the values went into the android condition.
                let ios = try await GooglePlayFixture.iosEntries(app, key)
                #expect(ios["current_version_android"] == "1.0.0" && ios["current_build_android"] == "1")
                let versions = try await StoreSyncFixture.versions(app)
                #expect(versions.count == 2)
                #expect(versions.first?["updateOrigin"] == "STORE_SYNC")
                #expect(versions.first?["description"]?.stringValue?.contains("versionCode 230") == true)

                // Again: nothing changed, nothing published, and the token is reused.
                let again = try await app.call(.post, GooglePlayFixture.run)
                #expect(again.value["result"] == "UNCHANGED", "\(again.text)")
                #expect(try await StoreSyncFixture.versions(app).count == 2)
                #expect(google.tokens == 1)
                #expect(google.grantTypes == ["urn:ietf:params:oauth:grant-type:jwt-bearer"])
                try Self.checkAssertion(try #require(google.assertions.first), account, audience: google.tokenURL)
                #expect(google.editsOpened == ["edit-1", "edit-2"])
                #expect(google.editsDeleted == google.editsOpened && google.trackReads == google.editsOpened)
                #expect(google.authorizations.allSatisfy { $0 == "Bearer ya29.test-token-1" })
            }
        }
    }

    @Test func stagedRolloutsCountOnlyWithAnyLiveAndHaltedOrDraftReleasesNever() async throws {
        let account = try TestServiceAccount()
        try await FakeGooglePlay.run { google in
            google.answer(track: Self.everyStatus)
            let targets: JSONValue = [
                "current_version_android": "versionName", "current_build_android": "versionCode",
                "android_rollout": "userFraction", "whats_new": "releaseNotes",
            ]
            try await Self.linked(google, account, ["stagedRollouts": "ANY_LIVE", "parameters": targets]) { app, key in
                let run = try await app.call(.post, GooglePlayFixture.run)
                #expect(run.value["result"] == "PUBLISHED", "\(run.text)")
                let android = try await GooglePlayFixture.androidEntries(app, key)
                #expect(android["current_version_android"] == "2.4.0")
                #expect(android["current_build_android"] == "241")
                #expect(android["android_rollout"] == "0.2")
                #expect(android["whats_new"] == "Wish lists.")

                // Only halted and draft releases: nothing is live, nothing changes, and the link says so.
                google.answer(
                    track: FakeGooglePlay.track(releases: [
                        FakeGooglePlay.release("2.5.0", codes: [251], status: "draft"),
                        FakeGooglePlay.release("2.4.0", codes: [241], status: "halted", userFraction: 0.2),
                        FakeGooglePlay.release(nil, codes: [250], status: "statusUnspecified"),
                    ]))
                let none = try await app.call(.post, GooglePlayFixture.run)
                #expect(none.value["result"] == "NOT_LIVE", "\(none.text)")
                #expect(none.value["lastError"]?.stringValue?.contains("no completed or in-progress release") == true)
                #expect(try await GooglePlayFixture.androidEntries(app, key)["current_build_android"] == "241")

                // The staged rollout completes: the fraction is the whole; the first notes stand in for en-US.
                google.answer(
                    track: FakeGooglePlay.track(releases: [
                        FakeGooglePlay.release("2.4.0", codes: [241], status: "completed", notes: [("fr-FR", "Listes")])
                    ]))
                #expect(try await app.call(.post, GooglePlayFixture.run).value["result"] == "PUBLISHED")
                let done = try await GooglePlayFixture.androidEntries(app, key)
                #expect(done["android_rollout"] == "1" && done["whats_new"] == "Listes")
            }
        }
    }

    @Test func aReleaseNameThatIsNotAVersionLeavesVersionNameAloneAndSaysWhy() async throws {
        let account = try TestServiceAccount()
        try await FakeGooglePlay.run { google in
            google.answer(
                track: FakeGooglePlay.track(releases: [
                    FakeGooglePlay.release("241 (2.4.0)", codes: [241], status: "completed")
                ]))
            try await Self.linked(google, account) { app, key in
                let run = try await app.call(.post, GooglePlayFixture.run)
                #expect(run.value["result"] == "PUBLISHED", "\(run.text)")
                let note = try #require(run.value["lastError"]?.stringValue)
                #expect(
                    note.contains("\"241 (2.4.0)\" does not read as a version")
                        && note.contains("current_version_android"))
                let android = try await GooglePlayFixture.androidEntries(app, key)
                #expect(android["current_version_android"] == "1.0.0" && android["current_build_android"] == "241")
            }
        }
    }

    @Test func googleRefusingTheAccountChangesNothingAndSaysSoInWords() async throws {
        let account = try TestServiceAccount()
        try await FakeGooglePlay.run { google in
            google.answer(track: Self.everyStatus)
            try await Self.linked(google, account) { app, key in
                for status in [403, 401] {
                    google.fail(.getTrack, .status(status))
                    let run = try await app.call(.post, GooglePlayFixture.run)
                    #expect(run.value["result"] == "FAILED", "\(run.text)")
                    let error = try #require(run.value["lastError"]?.stringValue)
                    #expect(
                        error.contains(
                            "the service account \(account.clientEmail) has no access to the app com.example.app"),
                        "\(error)")
                    #expect(error.contains("HTTP \(status)"))
                }
                // Every edit opened was deleted, the failed read's too.
                #expect(google.editsDeleted == google.editsOpened && google.editsOpened.count == 2)
                // A refused token is not used again.
                #expect(google.tokens == 2)
                #expect(try await StoreSyncFixture.versions(app).count == 1)
                #expect(try await GooglePlayFixture.androidEntries(app, key)["current_build_android"] == "1")
                let metrics = try await app.call(.get, "/metrics", token: nil).text
                #expect(MetricsTests.value(metrics, #"rc_store_sync_failures_total{store="google_play"}"#) == 2)
                #expect(MetricsTests.value(metrics, #"rc_store_sync_failures_total{store="app_store"}"#) == 0)
                let link = try await app.call(.get, GooglePlayFixture.path)
                #expect(link.value["consecutiveFailures"] == 2)

                // A key Google refuses at the token endpoint.
                google.fail(.getTrack, nil)
                google.fail(.token, .status(400))
                let refused = try await app.call(.post, GooglePlayFixture.run)
                #expect(
                    refused.value["lastError"]?.stringValue?.contains("Google refused the service account's key")
                        == true, "\(refused.text)")
                google.fail(.token, nil)
                #expect(try await app.call(.post, GooglePlayFixture.run).value["result"] == "PUBLISHED")
                let healthy = try await app.call(.get, GooglePlayFixture.path)
                #expect(healthy.value["consecutiveFailures"] == 0 && healthy.value["lastError"] == .null)
            }
        }
    }

    @Test func throttlingServerErrorsSlowAndOversizedAnswersFailAndBackOff() async throws {
        let account = try TestServiceAccount()
        try await FakeGooglePlay.run { google in
            google.answer(track: Self.everyStatus)
            try await Self.linked(google, account, configure: { $0.storeLookupTimeout = .seconds(2) }) {
                app, _ in
                // The token endpoint first: once a token is cached, syncs do not ask it again.
                let cases: [(FakeGooglePlay.Call, FakeGooglePlay.Failure, String)] = [
                    (.token, .status(503), "the token endpoint answered HTTP 503"),
                    (.token, .redirect("https://oauth2.googleapis.com/token"), "redirects are not followed"),
                    (.getTrack, .status(429), "HTTP 429 (too many requests); the sync backs off"),
                    (.insertEdit, .status(500), "HTTP 500 (a server error); the sync backs off"),
                    (.getTrack, .slow(.seconds(6)), "did not answer within"),
                    (.getTrack, .oversized, "answered more than 2097152 bytes"),
                    (.insertEdit, .redirect(google.apiURL + "/elsewhere"), "redirects are not followed"),
                    (
                        .getTrack,
                        .body(
                            #"{"track": "production", "releases": [{"status": "completed", "versionCodes": ["x"]}]}"#),
                        "version code that is not one"
                    ),
                    (.insertEdit, .body(#"{"id": "../../other"}"#), "the new edit has no usable id"),
                ]
                var failures = 0
                for (call, failure, words) in cases {
                    google.fail(call, failure)
                    let run = try await app.call(.post, GooglePlayFixture.run)
                    failures += 1
                    #expect(run.value["result"] == "FAILED", "\(words): \(run.text)")
                    #expect(run.value["lastError"]?.stringValue?.contains(words) == true, "\(run.text)")
                    #expect(run.value["consecutiveFailures"] == .number(String(failures)))
                    google.fail(call, nil)
                }
                #expect(try await StoreSyncFixture.versions(app).count == 1)
            }
        }
        // The backoff is App Store sync's: a minute, doubling, up to the interval or an hour.
        #expect(StoreSync.retryDelay(failures: 3, interval: 3600) == .seconds(240))
    }

    @Test func aTokenIsReusedUntilAMinuteBeforeItExpires() async throws {
        let account = try TestServiceAccount()
        try await FakeGooglePlay.run { google in
            google.answer(track: Self.everyStatus)
            google.expiresIn(45)
            try await Self.linked(google, account) { app, _ in
                for _ in 0..<3 { _ = try await app.call(.post, GooglePlayFixture.run) }
                // Within a minute of expiring from the start: a fresh one each time.
                #expect(google.tokens == 3)
                google.expiresIn(3599)
                for _ in 0..<3 { _ = try await app.call(.post, GooglePlayFixture.run) }
                #expect(google.tokens == 4)
                // A new key is a new token.
                let other = try TestServiceAccount()
                let saved = try await app.call(.put, GooglePlayFixture.path, json: GooglePlayFixture.link(other))
                #expect(saved.status == 200)
                _ = try await app.call(.post, GooglePlayFixture.run)
                #expect(google.tokens == 5)
                try Self.checkAssertion(try #require(google.assertions.last), other, audience: google.tokenURL)
            }
        }
    }

    @Test func underApprovalsASyncOpensAChangeRequestApprovedOnlyWithAutoApprove() async throws {
        let account = try TestServiceAccount()
        try await FakeGooglePlay.run { google in
            google.answer(track: Self.everyStatus)
            try await Self.linked(google, account) { app, _ in
                let patched = try await app.call(
                    .patch, "/v1/projects/shop-app", json: ["requireApproval": true, "approvalsRequired": 1])
                try #require(patched.status == 200, "\(patched.text)")
                let run = try await app.call(.post, GooglePlayFixture.run)
                #expect(run.value["result"] == "CHANGE_REQUEST", "\(run.text)")
                let id = try #require(run.value["changeRequest"]?.stringValue)
                let request = try await app.call(.get, "/v1/projects/shop-app/remoteConfig/\(id)")
                #expect(request.value["state"] == "OPEN", "\(request.text)")
                #expect(request.value["description"]?.stringValue?.contains("versionCode 230") == true)
                #expect(try await StoreSyncFixture.versions(app).count == 1)
                // The same release opens no second request while the first waits.
                #expect(try await app.call(.post, GooglePlayFixture.run).value["changeRequest"] == .string(id))
            }
        }
    }
}
