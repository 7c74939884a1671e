import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// `remoteConfig:evaluate`: what an app would get from the published template, a version or the draft,
/// and why; the same answer as a fetch, and nothing stored.
@Suite struct PreviewTests {
    static let path = "/v1/projects/shop-app/remoteConfig:evaluate"

    static func preview(
        _ app: TestApp.Session, _ context: JSONValue, version: String? = nil, token: String = TestApp.adminToken
    ) async throws -> TestApp.Reply {
        try await app.call(
            .post, path, token: token,
            body: PreviewRequest(context: context, versionNumber: version.map(JSONValue.string)))
    }

    /// The answer of a preview that must succeed.
    static func answer(
        _ app: TestApp.Session, _ context: JSONValue, version: String? = nil, token: String = TestApp.adminToken
    ) async throws -> PreviewAnswer {
        let reply = try await preview(app, context, version: version, token: token)
        try #require(reply.status == 200, "\(reply.text)")
        return try reply.decode(PreviewAnswer.self)
    }

    @Test func explainsTheForceUpdateRecipeForEachApp() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let viewer = try await app.createKey(role: "viewer", project: "shop-app")

            let old = try await Self.answer(
                app, ["platform": "IOS", "appVersion": "1.1.4"], token: viewer.secret)
            #expect(old.state == "UPDATE")
            #expect(old.templateVersion == "1")
            #expect(old.entries.keys.sorted() == ["current_version", "require_force_update"])
            #expect(old.entries["require_force_update"] == "true")
            #expect(old.entries["current_version"] == "2.3.0")
            #expect(old.parameters.keys.sorted() == ["app_store_url", "current_version", "require_force_update"])
            #expect(
                old.parameters["require_force_update"]
                    == .init(source: "CONDITION", value: "true", condition: "ios_too_old"))
            #expect(old.parameters["current_version"] == .init(source: "DEFAULT", value: "2.3.0"))
            #expect(old.parameters["app_store_url"] == .init(source: "IN_APP_DEFAULT"))
            #expect(old.conditions.keys.sorted() == ["broken_release", "ios_too_old"])
            #expect(old.conditions["ios_too_old"] == .some(true))
            #expect(old.conditions["broken_release"] == .some(true))

            let current = try await Self.answer(app, ["platform": "IOS", "appVersion": "2.1.0"])
            #expect(current.entries["require_force_update"] == "false")
            #expect(current.parameters["require_force_update"] == .init(source: "DEFAULT", value: "false"))

            // An input the app did not send leaves its conditions unknown (null), as a fetch treats them.
            let noVersion = try await Self.preview(app, ["platform": "ANDROID"])
            #expect(noVersion.value["conditions"]?["ios_too_old"] == .bool(false))
            #expect(noVersion.value["conditions"]?["broken_release"] == .null)
            let truths = try noVersion.decode(PreviewAnswer.self).conditions
            #expect(truths["ios_too_old"] == .some(false))
            #expect(truths["broken_release"] == .some(nil))
        }
    }

    @Test func answersWhatAFetchAnswers() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(storeURL: "https://apps.example/1"))
            let client = try await app.createKey(role: "client", project: "shop-app")
            for platform in ["IOS", "ANDROID"] {
                for version in ["1.0.0", "1.1.4", "1.9", "2.0.0", "2.10.1"] {
                    let context: JSONValue = [
                        "appInstanceId": .string("i-\(version)"), "platform": .string(platform),
                        "appVersion": .string(version),
                    ]
                    let fetch = try await ClientCalls.fetch(app, key: client.secret, context)
                    let preview = try await Self.preview(app, context)
                    #expect(preview.value["entries"] == fetch.value["entries"])
                    #expect(preview.value["state"] == fetch.value["state"])
                    #expect(preview.value["templateVersion"] == fetch.value["templateVersion"])
                }
            }
        }
    }

    @Test func previewsAVersionOrTheDraftAndStoresNothing() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let empty = try await Self.answer(app, ["platform": "IOS"])
            #expect(empty.state == "NO_TEMPLATE")
            #expect(empty.entries == OrderedMembers())

            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "2.3.0"))
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "2.4.0"))
            let first = try await Self.answer(app, ["platform": "IOS", "appVersion": "3.0.0"], version: "1")
            #expect(first.entries["current_version"] == "2.3.0")
            #expect(first.templateVersion == "1")

            // No draft yet: the draft is the published template; reading it stores nothing.
            let noDraft = try await Self.answer(app, ["platform": "IOS"], version: "draft")
            #expect(noDraft.entries["current_version"] == "2.4.0")
            #expect(try await app.call(.delete, "/v1/projects/shop-app/remoteConfig/draft").status == 404)

            try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig/draft",
                json: TemplateFixtures.forceUpdateValue(currentVersion: "3.0.0"), headers: [.ifMatch: "*"])
            let audit = try await app.call(.get, "/v1/projects/shop-app/auditLog")
            let draft = try await Self.preview(app, ["platform": "IOS"], version: "draft")
            #expect(try draft.decode(PreviewAnswer.self).entries["current_version"] == "3.0.0")
            #expect(draft.value["templateVersion"] == nil)
            #expect(try await app.call(.get, "/v1/projects/shop-app/auditLog").text == audit.text)

            let missing = try await Self.preview(app, ["platform": "IOS"], version: "99")
            #expect(missing.status == 404)
        }
    }

    @Test func badRequestsNameTheFieldAndClientKeysAreRefused() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
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
