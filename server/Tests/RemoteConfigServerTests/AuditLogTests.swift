import Foundation
import HTTPTypes
import RemoteConfigTestSupport
import Testing

/// The audit log names the acting key, not only its free-text display name, and an admin for all projects
/// reads every event, including those of keys for all projects.
@Suite struct AuditLogTests {
    static func events(_ reply: TestApp.Reply) -> [[String: Any]] { reply.json["events"] as? [[String: Any]] ?? [] }

    @Test func aKeyNamedLikeTheBootstrapAdminIsToldApartByItsId() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            // A project admin names a key exactly like the global admin, then edits with it.
            let projectAdmin = try await app.createKey(role: "admin", project: "shop-app")
            let impostor = try await app.call(
                .post, "/v1/apiKeys", token: projectAdmin.secret,
                json: ["role": "editor", "project": "shop-app", "displayName": "bootstrap admin"])
            #expect(impostor.status == 201)
            let impostorSecret = try #require(impostor.json["key"] as? String)
            let impostorName = try #require(impostor.json["name"] as? String)
            let published = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig", token: impostorSecret, json: TemplateFixtures.forceUpdate(),
                headers: [.ifMatch: "*"])
            #expect(published.status == 200)

            let log = Self.events(try await app.call(.get, "/v1/projects/shop-app/auditLog"))
            let publish = try #require(log.first { $0["action"] as? String == "template.publish" })
            #expect(publish["actor"] as? String == "bootstrap admin")
            #expect(publish["actorKey"] as? String == impostorName)
            let created = try #require(log.first { $0["action"] as? String == "project.create" })
            #expect(created["actor"] as? String == "bootstrap admin")
            let bootstrapKey = try #require(created["actorKey"] as? String)
            #expect(bootstrapKey.hasPrefix("apiKeys/") && bootstrapKey != impostorName)
            let keyCreate = try #require(log.first { $0["action"] as? String == "apiKey.create" })
            #expect(keyCreate["actorKey"] as? String == "apiKeys/\(projectAdmin.id)")
        }
    }

    @Test func theLogOfAllProjectsShowsEveryEventToAGlobalAdminOnly() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.createProject("other-app")
            let globalViewer = try await app.createKey(role: "viewer")
            let projectAdmin = try await app.createKey(role: "admin", project: "shop-app")
            try await app.publish("other-app", TemplateFixtures.forceUpdate())

            let all = try await app.call(.get, "/v1/auditLog")
            #expect(all.status == 200)
            let events = Self.events(all)
            #expect(
                events.map { $0["action"] as? String } == [
                    "template.publish", "apiKey.create", "apiKey.create", "project.create", "project.create",
                ])
            // A key for all projects belongs to no project: only this log shows its creation.
            let global = try #require(
                events.first { ($0["detail"] as? [String: Any])?["key"] as? String == "apiKeys/\(globalViewer.id)" })
            #expect(global["project"] is NSNull)
            #expect(events.first?["project"] as? String == "other-app")
            #expect(events.allSatisfy { ($0["actorKey"] as? String)?.hasPrefix("apiKeys/") == true })
            let shopLog = Self.events(try await app.call(.get, "/v1/projects/shop-app/auditLog"))
            #expect(shopLog.count == 2, "project.create and the project admin's key")

            let page = try await app.call(.get, "/v1/auditLog?pageSize=2")
            #expect(Self.events(page).count == 2)
            let token = try #require(page.json["nextPageToken"] as? String)
            let rest = try await app.call(.get, "/v1/auditLog?pageToken=\(token)")
            #expect(Self.events(rest).count == 3)

            #expect(try await app.call(.get, "/v1/auditLog", token: projectAdmin.secret).status == 403)
            #expect(try await app.call(.get, "/v1/auditLog", token: globalViewer.secret).status == 403)
            #expect(try await app.call(.get, "/v1/auditLog", token: nil).status == 401)
        }
    }
}
