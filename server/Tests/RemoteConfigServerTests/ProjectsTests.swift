import Foundation
import RemoteConfigTestSupport
import Testing

@Suite struct ProjectsTests {
    @Test func createListAndRead() async throws {
        try await TestApp.run { app in
            let created = try await app.call(
                .post, "/v1/projects", json: ["projectId": "shop-app", "displayName": "Shop"])
            #expect(created.status == 201)
            #expect(created.json["projectId"] as? String == "shop-app")
            #expect(created.json["displayName"] as? String == "Shop")
            #expect((created.json["createTime"] as? String)?.hasSuffix("Z") == true)

            let one = try await app.call(.get, "/v1/projects/shop-app")
            #expect(one.status == 200)
            #expect(one.json["displayName"] as? String == "Shop")

            try await app.createProject("other-app")
            let list = try await app.call(.get, "/v1/projects")
            let ids = (list.json["projects"] as? [[String: Any]])?.compactMap { $0["projectId"] as? String }
            #expect(ids == ["other-app", "shop-app"])
        }
    }

    @Test(arguments: ["ab", "1abc", "Shop", "shop_app", "-shop", String(repeating: "a", count: 64), ""])
    func invalidProjectIdIsRejected(_ id: String) async throws {
        try await TestApp.run { app in
            let reply = try await app.call(.post, "/v1/projects", json: ["projectId": id])
            #expect(reply.status == 400)
            #expect(reply.errorStatus == "INVALID_ARGUMENT")
            #expect(reply.errorFields == ["projectId"])
            let list = try await app.call(.get, "/v1/projects")
            #expect((list.json["projects"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func missingOrMistypedFieldsNameTheField() async throws {
        try await TestApp.run { app in
            let missing = try await app.call(.post, "/v1/projects", json: ["displayName": "x"])
            #expect(missing.status == 400)
            #expect(missing.errorFields == ["projectId"])
            let mistyped = try await app.call(.post, "/v1/projects", json: ["projectId": 42])
            #expect(mistyped.status == 400)
            #expect(mistyped.errorReasons == ["NOT_A_STRING"])
        }
    }

    @Test func takenProjectIdIsAConflict() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let again = try await app.call(
                .post, "/v1/projects", json: ["projectId": "shop-app", "displayName": "Again"])
            #expect(again.status == 409)
            #expect(again.errorStatus == "ALREADY_EXISTS")
            let one = try await app.call(.get, "/v1/projects/shop-app")
            #expect(one.json["displayName"] as? String == "SHOP-APP")
        }
    }

    @Test func unknownProjectIsNotFound() async throws {
        try await TestApp.run { app in
            let reply = try await app.call(.get, "/v1/projects/nope-app")
            #expect(reply.status == 404)
            #expect(reply.errorStatus == "NOT_FOUND")
        }
    }

    @Test func aProjectKeySeesOnlyItsProject() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.createProject("other-app")
            let viewer = try await app.createKey(role: "viewer", project: "shop-app")
            let list = try await app.call(.get, "/v1/projects", token: viewer.secret)
            let ids = (list.json["projects"] as? [[String: Any]])?.compactMap { $0["projectId"] as? String }
            #expect(ids == ["shop-app"])
        }
    }
}
