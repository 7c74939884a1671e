import Foundation
import HTTPTypes
import RemoteConfigTestSupport
import Testing

/// `remoteConfig:evaluate`: what an app would get from the published template, a version or the draft,
/// and why; the same answer as a fetch, and nothing stored.
@Suite struct PreviewTests {
    static let path = "/v1/projects/shop-app/remoteConfig:evaluate"

    static func preview(
        _ app: TestApp.Session, _ context: [String: Any], version: String? = nil, token: String = TestApp.adminToken
    ) async throws -> TestApp.Reply {
        var body: [String: Any] = ["context": context]
        if let version { body["versionNumber"] = version }
        return try await app.call(.post, path, token: token, json: body)
    }

    @Test func explainsTheForceUpdateRecipeForEachApp() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdate())
            let viewer = try await app.createKey(role: "viewer", project: "shop-app")

            let old = try await Self.preview(
                app, ["platform": "IOS", "appVersion": "1.1.4"], token: viewer.secret)
            #expect(old.status == 200, "\(old.text)")
            #expect(old.json["state"] as? String == "UPDATE")
            #expect(old.json["templateVersion"] as? String == "1")
            #expect(
                old.json["entries"] as? [String: String] == [
                    "require_force_update": "true", "current_version": "2.3.0",
                ])
            let parameters = try #require(old.json["parameters"] as? [String: [String: String]])
            #expect(
                parameters["require_force_update"] == [
                    "value": "true", "source": "CONDITION", "condition": "ios_too_old",
                ])
            #expect(parameters["current_version"] == ["value": "2.3.0", "source": "DEFAULT"])
            #expect(parameters["app_store_url"] == ["source": "IN_APP_DEFAULT"])
            let conditions = try #require(old.json["conditions"] as? [String: Bool])
            #expect(conditions == ["ios_too_old": true, "broken_release": true])

            let current = try await Self.preview(app, ["platform": "IOS", "appVersion": "2.1.0"])
            #expect((current.json["entries"] as? [String: String])?["require_force_update"] == "false")
            let currentParameters = current.json["parameters"] as? [String: [String: String]]
            #expect(currentParameters?["require_force_update"] == ["value": "false", "source": "DEFAULT"])

            // An input the app did not send leaves its conditions unknown (null), as a fetch treats them.
            let noVersion = try await Self.preview(app, ["platform": "ANDROID"])
            let truths = try #require(noVersion.json["conditions"] as? [String: Any])
            #expect(truths["ios_too_old"] as? Bool == false)
            #expect(truths["broken_release"] is NSNull)
        }
    }

    @Test func answersWhatAFetchAnswers() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdate(storeURL: "https://apps.example/1"))
            let client = try await app.createKey(role: "client", project: "shop-app")
            for platform in ["IOS", "ANDROID"] {
                for version in ["1.0.0", "1.1.4", "1.9", "2.0.0", "2.10.1"] {
                    let context: [String: Any] = [
                        "appInstanceId": "i-\(version)", "platform": platform, "appVersion": version,
                    ]
                    let fetch = try await ClientCalls.fetch(app, key: client.secret, context)
                    let preview = try await Self.preview(app, context)
                    #expect(preview.json["entries"] as? [String: String] == fetch.json["entries"] as? [String: String])
                    #expect(preview.json["state"] as? String == fetch.json["state"] as? String)
                    #expect(preview.json["templateVersion"] as? String == fetch.json["templateVersion"] as? String)
                }
            }
        }
    }

    @Test func previewsAVersionOrTheDraftAndStoresNothing() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let empty = try await Self.preview(app, ["platform": "IOS"])
            #expect(empty.json["state"] as? String == "NO_TEMPLATE")
            #expect(empty.json["entries"] as? [String: String] == [:])

            try await app.publish("shop-app", TemplateFixtures.forceUpdate(currentVersion: "2.3.0"))
            try await app.publish("shop-app", TemplateFixtures.forceUpdate(currentVersion: "2.4.0"))
            let first = try await Self.preview(app, ["platform": "IOS", "appVersion": "3.0.0"], version: "1")
            #expect((first.json["entries"] as? [String: String])?["current_version"] == "2.3.0")
            #expect(first.json["templateVersion"] as? String == "1")

            // No draft yet: the draft is the published template; reading it stores nothing.
            let noDraft = try await Self.preview(app, ["platform": "IOS"], version: "draft")
            #expect((noDraft.json["entries"] as? [String: String])?["current_version"] == "2.4.0")
            #expect(try await app.call(.delete, "/v1/projects/shop-app/remoteConfig/draft").status == 404)

            try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig/draft",
                json: TemplateFixtures.forceUpdate(currentVersion: "3.0.0"), headers: [.ifMatch: "*"])
            let audit = try await app.call(.get, "/v1/projects/shop-app/auditLog")
            let draft = try await Self.preview(app, ["platform": "IOS"], version: "draft")
            #expect((draft.json["entries"] as? [String: String])?["current_version"] == "3.0.0")
            #expect(draft.json["templateVersion"] == nil)
            #expect(try await app.call(.get, "/v1/projects/shop-app/auditLog").text == audit.text)

            let missing = try await Self.preview(app, ["platform": "IOS"], version: "99")
            #expect(missing.status == 404)
        }
    }

    @Test func badRequestsNameTheFieldAndClientKeysAreRefused() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdate())
            let badPlatform = try await Self.preview(app, ["platform": "SYMBIAN"])
            #expect(badPlatform.status == 400)
            #expect(badPlatform.errorFields == ["context.platform"])
            let badVersion = try await Self.preview(app, ["platform": "IOS"], version: "latest")
            #expect(badVersion.status == 400)
            #expect(badVersion.errorFields == ["versionNumber"])
            let unknown = try await app.call(.post, Self.path, json: ["contxt": [:]])
            #expect(unknown.status == 400)
            #expect(unknown.errorFields == ["contxt"])
            let client = try await app.createKey(role: "client", project: "shop-app")
            #expect(try await Self.preview(app, [:], token: client.secret).status == 403)
            #expect(try await app.call(.post, Self.path, token: nil, json: ["context": [:]]).status == 401)
            #expect(
                try await app.call(.post, "/v1/projects/no-app/remoteConfig:evaluate", json: ["context": [:]]).status
                    == 404)
        }
    }
}
