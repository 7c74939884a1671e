import Foundation
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// A person's personal token (what `remote-config login` saves) opens `/mcp` as it opens the admin API: the
/// person's role bindings decide, and the change request and its audit entry name the person.
@Suite struct MCPPersonalTokenTests {
    @Test func aPersonalTokenActsWithThePersonsBindings() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.createProject("other-app")
            try await app.publish("shop-app", MCPProposeChangeTests.template)
            try await app.publish("other-app", MCPProposeChangeTests.template)
            let person = try await Person.signIn(app, email: "ana@example.com")
            _ = try await bind(app, "user:ana@example.com", "editor", "shop-app")
            let (_, token) = try await SessionStore(database: app.database, maxAge: .seconds(3600)).create(
                user: person.user.id, kind: .personal)
            var mcp = MCPSession(app, token: token)
            _ = try await mcp.initialize()
            let proposed = try await mcp.call(
                "propose_change",
                [
                    "project": "shop-app", "description": "Raise",
                    "edits": [["set": ["parameter": "min_supported_version", "value": "2.3.0"]]],
                ])
            #expect(proposed["isError"]?.boolValue == false, "\(proposed.jsonString)")
            #expect(proposed.structured["changeRequest"]?["author"]?["displayName"] == "ana")
            let elsewhere = try await mcp.call("get_template", ["project": "other-app"])
            #expect(
                elsewhere.toolError
                    == "PERMISSION_DENIED: this route needs the viewer role; you have no role on project other-app")
            let log = try await app.call(.get, "/v1/projects/shop-app/auditLog")
            let created = log.value["events"]?.arrayValue?.first { $0["action"] == "changeRequest.create" }
            #expect(created?["detail"]?["via"] == "mcp")
            #expect(created?["actor"]?["email"] == "ana@example.com")
        }
    }
}
