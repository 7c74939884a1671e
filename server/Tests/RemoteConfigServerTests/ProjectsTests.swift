import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

@Suite struct ProjectsTests {
    @Test func createListAndRead() async throws {
        try await TestApp.run { app in
            let created = try await app.call(
                .post, "/v1/projects", json: ["projectId": "shop-app", "displayName": "Shop"])
            #expect(created.status == 201)
            let project = try created.decode(Project.self)
            #expect(project.projectId == "shop-app")
            #expect(project.displayName == "Shop")
            #expect(abs(project.createTime.timeIntervalSinceNow) < 60)
            // RFC 3339 in UTC, with milliseconds, as Firebase writes times.
            #expect(created.text.contains(#""createTime":"\#(RFC3339.format(project.createTime))""#))
            #expect(RFC3339.format(project.createTime).hasSuffix("Z"))

            #expect(try await app.admin.project("shop-app") == project)

            try await app.admin.createProject("other-app")
            let ids = try await app.admin.listProjects().projects.map(\.projectId)
            #expect(ids == ["other-app", "shop-app"])
        }
    }

    @Test(arguments: ["ab", "1abc", "Shop", "shop_app", "-shop", String(repeating: "a", count: 64), ""])
    func invalidProjectIdIsRejected(_ id: String) async throws {
        try await TestApp.run { app in
            let reply = try await app.call(.post, "/v1/projects", body: CreateProjectRequest(projectId: id))
            #expect(reply.status == 400)
            #expect(reply.errorStatus == "INVALID_ARGUMENT")
            #expect(reply.errorFields == ["projectId"])
            #expect(try await app.admin.listProjects().projects.isEmpty)
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
            #expect(
                mistyped.errorBody
                    == ErrorBody(
                        error: .init(
                            code: 400, status: "INVALID_ARGUMENT", message: "projectId must be a string",
                            details: [.init(field: "projectId", reason: "NOT_A_STRING")])))
        }
    }

    @Test func takenProjectIdIsAConflict() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let again = try await app.call(
                .post, "/v1/projects", json: ["projectId": "shop-app", "displayName": "Again"])
            #expect(again.status == 409)
            #expect(again.errorStatus == "ALREADY_EXISTS")
            #expect(try await app.admin.project("shop-app").displayName == "SHOP-APP")
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
            let ids = try await app.admin.with(token: viewer.secret).listProjects().projects.map(\.projectId)
            #expect(ids == ["shop-app"])
        }
    }
}
