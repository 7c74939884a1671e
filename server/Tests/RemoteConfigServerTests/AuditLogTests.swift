import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigTestSupport
import Testing

/// The audit log names the acting key, not only its free-text display name, and an admin for all projects
/// reads every event, including those of keys for all projects.
@Suite struct AuditLogTests {
    static func events(_ reply: TestApp.Reply) throws -> [AuditLogEntry] { try reply.decode(AuditLogPage.self).events }

    @Test func aKeyNamedLikeTheBootstrapAdminIsToldApartByItsId() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            // A project admin names a key exactly like the global admin, then edits with it.
            let projectAdmin = try await app.createKey(role: "admin", project: "shop-app")
            let impostor = try await app.call(
                .post, "/v1/apiKeys", token: projectAdmin.secret,
                json: ["role": "editor", "project": "shop-app", "displayName": "bootstrap admin"])
            #expect(impostor.status == 201)
            let created = try impostor.decode(APIKey.self)
            let impostorSecret = try #require(created.key)
            let impostorName = created.name
            let published = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig", token: impostorSecret,
                json: TemplateFixtures.forceUpdateValue(),
                headers: [.ifMatch: "*"])
            #expect(published.status == 200)

            let log = try Self.events(try await app.call(.get, "/v1/projects/shop-app/auditLog"))
            let publish = try #require(log.first { $0.action == "template.publish" })
            #expect(publish.actor.displayName == "bootstrap admin")
            #expect(publish.actorKey == impostorName)
            let projectCreate = try #require(log.first { $0.action == "project.create" })
            #expect(projectCreate.actor.displayName == "bootstrap admin")
            let bootstrapKey = try #require(projectCreate.actorKey)
            #expect(bootstrapKey.hasPrefix("apiKeys/") && bootstrapKey != impostorName)
            let keyCreate = try #require(log.first { $0.action == "apiKey.create" })
            #expect(keyCreate.actorKey == "apiKeys/\(projectAdmin.id)")
        }
    }

    @Test func theLogOfAllProjectsShowsEveryEventToAGlobalAdminOnly() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.createProject("other-app")
            let globalViewer = try await app.createKey(role: "viewer")
            let projectAdmin = try await app.createKey(role: "admin", project: "shop-app")
            try await app.publish("other-app", TemplateFixtures.forceUpdateValue())

            let all = try await app.call(.get, "/v1/auditLog")
            #expect(all.status == 200)
            let events = try Self.events(all)
            #expect(
                events.map(\.action) == [
                    "template.publish", "apiKey.create", "apiKey.create", "project.create", "project.create",
                ])
            // A key for all projects belongs to no project: only this log shows its creation.
            let global = try #require(
                events.first { $0.detail["key"]?.stringValue == "apiKeys/\(globalViewer.id)" })
            #expect(global.project == .some(nil), "null: no project")
            #expect(events.first?.project == "other-app")
            #expect(events.allSatisfy { $0.actorKey?.hasPrefix("apiKeys/") == true })
            let shopLog = try Self.events(try await app.call(.get, "/v1/projects/shop-app/auditLog"))
            #expect(shopLog.count == 2, "project.create and the project admin's key")
            #expect(shopLog.allSatisfy { $0.project == nil }, "a project's own log leaves project out")

            let page = try await app.call(.get, "/v1/auditLog?pageSize=2")
            #expect(try Self.events(page).count == 2)
            let token = try #require(try page.decode(AuditLogPage.self).nextPageToken)
            let rest = try await app.call(.get, "/v1/auditLog?pageToken=\(token)")
            #expect(try Self.events(rest).count == 3)
            #expect(try rest.decode(AuditLogPage.self).nextPageToken == nil)

            #expect(try await app.call(.get, "/v1/auditLog", token: projectAdmin.secret).status == 403)
            #expect(try await app.call(.get, "/v1/auditLog", token: globalViewer.secret).status == 403)
            #expect(try await app.call(.get, "/v1/auditLog", token: nil).status == 401)
        }
    }
}
