import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// Projects linked as one app's environments: a name for people, the project promotions go to (existing, no
/// cycles), and the parameters that stay in each environment; shown by `GET`, audited, and a bad link changes
/// nothing.
@Suite struct ProjectLinkTests {
    static func project(_ app: TestApp.Session, _ id: String) async throws -> Project {
        try await app.call(.get, "/v1/projects/\(id)").decode(Project.self)
    }

    @Test func aProjectIsLinkedToTheOneItPromotesTo() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            for id in ["shop-app", "shop-app-staging", "shop-app-dev"] { try await app.createProject(id) }
            let fresh = try await app.call(.get, "/v1/projects/shop-app")
            #expect(fresh.value["environmentName"] == .null, "every field is shown, null when unset: \(fresh.text)")
            #expect(fresh.value["promotesTo"] == .null)
            #expect(fresh.value["localParameters"] == .array([]))

            let linked = try await app.call(
                .patch, "/v1/projects/shop-app-staging",
                json: [
                    "environmentName": "staging", "promotesTo": "shop-app",
                    "localParameters": ["api_base_url", "app_store_url", "api_base_url"],
                ])
            #expect(linked.status == 200, "\(linked.text)")
            let staging = try linked.decode(Project.self)
            #expect(staging.environmentName == "staging" && staging.promotesTo == "shop-app")
            #expect(staging.localParameters == ["api_base_url", "app_store_url"], "named once each, in order")
            #expect(
                try await app.call(.patch, "/v1/projects/shop-app-dev", json: ["promotesTo": "shop-app-staging"])
                    .status == 200)
            let listed = try await app.call(.get, "/v1/projects").decode(ProjectList.self).projects
            #expect(listed.first { $0.projectId == "shop-app-staging" } == staging)

            let audit = try await app.call(.get, "/v1/projects/shop-app-staging/auditLog").value["events"]?
                .arrayValue?.first { $0["action"] == "project.update" }
            #expect(audit?["detail"]?["promotesTo"] == "shop-app")
            #expect(audit?["detail"]?["localParameters"] == "api_base_url,app_store_url")

            // Unlinked and unnamed with null; the other settings stay.
            let cleared = try await app.call(
                .patch, "/v1/projects/shop-app-dev", json: ["promotesTo": .null, "environmentName": .null])
            #expect(cleared.status == 200)
            #expect(try cleared.decode(Project.self).promotesTo == nil)
            #expect(try await Self.project(app, "shop-app-staging") == staging)
        }
    }

    @Test func aBadLinkIsRefusedAndChangesNothing() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            for id in ["shop-app", "shop-app-staging", "shop-app-dev", "other-app"] { try await app.createProject(id) }
            #expect(
                try await app.call(.patch, "/v1/projects/shop-app-staging", json: ["promotesTo": "shop-app"]).status
                    == 200)
            #expect(
                try await app.call(.patch, "/v1/projects/shop-app-dev", json: ["promotesTo": "shop-app-staging"])
                    .status == 200)
            let before = try await Self.project(app, "shop-app")
            let cases: [(body: JSONValue, field: String, reason: String)] = [
                (["promotesTo": "shop-app-dev"], "promotesTo", "PROMOTION_CYCLE"),
                (["promotesTo": "shop-app"], "promotesTo", "PROMOTION_CYCLE"),
                (["promotesTo": "no-such-app"], "promotesTo", "PROJECT_NOT_FOUND"),
                (["promotesTo": "Not A Project"], "promotesTo", "PROJECT_NOT_FOUND"),
                (
                    ["promotesTo": "other-app", "localParameters": ["ok", "9lives"]], "localParameters.1", "INVALID_KEY"
                ),
                (["environmentName": ""], "environmentName", "REQUIRED"),
                (["environmentName": .string(String(repeating: "e", count: 65))], "environmentName", "TOO_LONG"),
                (["environmentName": "staging\u{1b}[2J"], "environmentName", "INVALID_CHARACTER"),
            ]
            for (body, field, reason) in cases {
                let reply = try await app.call(.patch, "/v1/projects/shop-app", json: body)
                #expect(reply.status == 400, "\(body): \(reply.text)")
                #expect(reply.value["error"]?["details"]?[0]?["field"] == .string(field), "\(body): \(reply.text)")
                #expect(reply.value["error"]?["details"]?[0]?["reason"] == .string(reason), "\(body): \(reply.text)")
            }
            let cycle = try await app.call(.patch, "/v1/projects/shop-app", json: ["promotesTo": "shop-app-dev"])
            #expect(cycle.value["error"]?["message"]?.stringValue?.contains("shop-app → shop-app-dev") == true)
            #expect(try await Self.project(app, "shop-app") == before, "a refused link changes nothing")

            // An admin of one project cannot link it to a project it cannot see: answered as one that does not
            // exist, so the answer does not tell which projects exist.
            let admin = try await app.createKey(role: "admin", project: "other-app").secret
            let hidden = try await app.call(
                .patch, "/v1/projects/other-app", token: admin, json: ["promotesTo": "shop-app"])
            #expect(hidden.status == 400)
            #expect(hidden.value["error"]?["details"]?[0]?["reason"] == "PROJECT_NOT_FOUND")
        }
    }
}
