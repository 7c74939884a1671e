import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigTestSupport
import _CryptoExtras

/// A service account as Google Cloud hands it out: a fresh RSA key, and its JSON key file.
struct TestServiceAccount: Sendable {
    let privateKey: _RSA.Signing.PrivateKey
    let clientEmail: String
    let privateKeyId: String

    init(clientEmail: String = "remote-config@shop-123.iam.gserviceaccount.com", privateKeyId: String? = nil)
        throws
    {
        privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        self.clientEmail = clientEmail
        self.privateKeyId = privateKeyId ?? UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// The PEM Google's key files hold (PKCS #8).
    var pem: String { privateKey.pkcs8PEMRepresentation }

    /// The key file, with the members Google writes beside the ones the server reads.
    var keyFile: JSONValue {
        [
            "type": "service_account", "project_id": "shop-123", "private_key_id": .string(privateKeyId),
            "private_key": .string(pem), "client_email": .string(clientEmail), "client_id": "104223412341234123412",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": "https://oauth2.googleapis.com/token",
            "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
            "universe_domain": "googleapis.com",
        ]
    }
}

/// What the Google Play tests share: `shop-app` with an Android template, and the link of API.md's example.
enum GooglePlayFixture {
    static let path = "/v1/projects/shop-app/storeSync/googlePlay"
    static let run = "/v1/projects/shop-app/storeSync/googlePlay:run"

    /// A template with an Android condition and a parameter for every release field.
    static let template: JSONValue = [
        "conditions": [["name": "android", "expression": "device.os == 'android'"]],
        "parameters": [
            "current_version_android": ["defaultValue": ["value": "1.0.0"], "valueType": "STRING"],
            "current_build_android": ["defaultValue": ["value": "1"], "valueType": "NUMBER"],
            "android_update_priority": ["defaultValue": ["value": "0"], "valueType": "NUMBER"],
            "android_rollout": ["defaultValue": ["value": "0"], "valueType": "NUMBER"],
            "whats_new": ["defaultValue": ["value": ""], "valueType": "STRING"],
            "dark_mode": ["defaultValue": ["value": "false"], "valueType": "BOOLEAN"],
        ],
    ]

    /// API.md's example targets.
    static let targets: JSONValue = [
        "current_version_android": "versionName", "current_build_android": "versionCode",
        "android_update_priority": "inAppUpdatePriority",
    ]

    /// The link of API.md's example, switched off unless asked (so only `:run` syncs it), with `extra`'s members
    /// set on it and `removed` left out.
    static func link(
        _ account: TestServiceAccount?, _ extra: JSONObject = [:], without removed: String? = nil
    ) -> JSONValue {
        var body: JSONObject = [
            "enabled": false, "packageName": "com.example.app", "track": "production", "intervalSeconds": 3600,
            "parameters": targets, "condition": "android", "stagedRollouts": "COMPLETED_ONLY",
            "autoApprove": false,
        ]
        if let account { body["serviceAccountKey"] = account.keyFile }
        for member in extra { body[member.key] = member.value }
        if let removed { body[removed] = nil }
        return .object(body)
    }

    /// An application whose Google endpoints are `google`'s (the unreachable defaults of the tests without one),
    /// with `shop-app` published and a client key.
    static func shop(
        _ google: FakeGooglePlay? = nil, configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable @escaping (TestApp.Session, String) async throws -> Void
    ) async throws {
        let urls = google.map { ($0.tokenURL, $0.apiURL) }
        let url = try await TestClusterURL.make()
        let setUp: (inout ServerConfiguration) -> Void = {
            if let urls {
                $0.playTokenURL = urls.0
                $0.playAPIURL = urls.1
            }
            configure(&$0)
        }
        try await TestApp.run(url: url, configure: setUp) { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", template)
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await body(app, key.secret)
        }
    }

    /// The values an Android app on 1.0.0 fetches.
    static func androidEntries(_ app: TestApp.Session, _ key: String) async throws -> [String: String] {
        let body: JSONValue = [
            "appInstanceId": "android-instance-1", "platform": "ANDROID", "appVersion": "1.0.0",
        ]
        let reply = try await ClientCalls.fetch(app, key: key, body)
        return StoreSyncFixture.strings(reply.value["entries"])
    }

    /// The values an iOS app fetches.
    static func iosEntries(_ app: TestApp.Session, _ key: String) async throws -> [String: String] {
        let reply = try await ClientCalls.fetch(app, key: key, ClientCalls.iosBody("2.0.0"))
        return StoreSyncFixture.strings(reply.value["entries"])
    }
}
