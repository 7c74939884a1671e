import Foundation
import HTTPTypes
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// `/mcp`: the Streamable HTTP transport, the read tools and resources, each the admin call it describes with the
/// caller's credentials; errors are tool errors with the API's message.
@Suite struct MCPEndpointTests {
    static let tools = [
        "list_projects", "get_template", "list_versions", "diff_versions", "validate_template", "preview_fetch",
        "fleet_versions", "parameter_shares", "impact", "recommend_minimum_version", "list_change_requests",
        "propose_change", "get_audit_log",
    ]

    @Test func withoutAKeyItIs401WithABearerChallenge() async throws {
        try await TestApp.run { app in
            var mcp = MCPSession(app, token: nil)
            let (reply, _) = try await mcp.post(["jsonrpc": "2.0", "id": 1, "method": "initialize", "params": [:]])
            #expect(reply.status == 401)
            #expect(reply.headers[.wwwAuthenticate] == "Bearer")
            #expect(reply.errorStatus == "UNAUTHENTICATED")
            var bad = MCPSession(app, token: "rc_admin_notAKey")
            #expect(try await bad.post(["jsonrpc": "2.0", "id": 1, "method": "ping"]).0.status == 401)
        }
    }

    @Test func initializeNegotiatesTheSDKsVersionsAndListsEveryTool() async throws {
        try await TestApp.run { app in
            for version in ["2025-06-18", "2025-03-26", "2024-11-05"] {
                var mcp = MCPSession(app, token: TestApp.adminToken)
                let result = try await mcp.initialize(version: version)
                #expect(result["protocolVersion"]?.stringValue == version)
                #expect(result["serverInfo"]?["name"]?.stringValue == "remote-config")
                #expect(mcp.sessionID?.isEmpty == false)
            }
            var mcp = MCPSession(app, token: TestApp.adminToken)
            let unknown = try await mcp.initialize(version: "1999-01-01")
            #expect(unknown["protocolVersion"]?.stringValue?.hasPrefix("2025-") == true, "the newest it speaks")
            let listed = try await mcp.request("tools/list")
            let tools = listed["result"]?["tools"]?.arrayValue ?? []
            #expect(tools.compactMap { $0["name"]?.stringValue } == Self.tools)
            for tool in tools {
                #expect(tool["inputSchema"]?["type"]?.stringValue == "object")
                #expect(tool["description"]?.stringValue?.contains("never") == true, "says what it never does")
            }
            let readOnly = tools.filter { $0["annotations"]?["readOnlyHint"]?.boolValue == true }
            #expect(readOnly.count == Self.tools.count - 1, "all but propose_change")
        }
    }

    @Test func readToolsAnswerWhatTheirAdminCallsAnswer() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "2.2.0"))
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "2.3.0"))
            var mcp = MCPSession(app, token: TestApp.adminToken)
            _ = try await mcp.initialize()

            let projects = try await mcp.call("list_projects")
            #expect(projects["isError"]?.boolValue == false)
            #expect(projects.structured["projects"]?[0]?["projectId"]?.stringValue == "shop-app")
            let template = try await mcp.call("get_template", ["project": "shop-app"])
            #expect(template.structured["parameters"]?["current_version"]?["defaultValue"]?["value"] == "2.3.0")
            #expect(template["content"]?[0]?["text"]?.stringValue?.contains("current_version") == true)
            let first = try await mcp.call("get_template", ["project": "shop-app", "version": "1"])
            #expect(first.structured["parameters"]?["current_version"]?["defaultValue"]?["value"] == "2.2.0")
            let versions = try await mcp.call("list_versions", ["project": "shop-app", "pageSize": 1])
            #expect(versions.structured["versions"]?.count == 1)
            #expect(versions.structured["nextPageToken"] != nil)
            let diff = try await mcp.call("diff_versions", ["project": "shop-app", "from": "1", "to": "2"])
            #expect(diff.structured.jsonString.contains("current_version"))
            // A template stored nowhere, against version 1: its changed current_version, before and after.
            let against = try await mcp.call(
                "diff_versions",
                [
                    "project": "shop-app", "from": "1",
                    "template": TemplateFixtures.forceUpdateValue(currentVersion: "2.4.0"),
                ])
            #expect(against.structured["to"] == "template")
            #expect(against.structured.jsonString.contains("2.2.0") && against.structured.jsonString.contains("2.4.0"))
            let both = try await mcp.call(
                "diff_versions",
                ["project": "shop-app", "from": "1", "to": "2", "template": TemplateFixtures.forceUpdateValue()])
            #expect(both["isError"]?.boolValue == true)
            let preview = try await mcp.call(
                "preview_fetch",
                ["project": "shop-app", "context": ["appInstanceId": "a1", "platform": "IOS", "appVersion": "1.5.0"]])
            #expect(preview.structured["entries"]?["require_force_update"] == "true")
            #expect(preview.structured["parameters"]?["require_force_update"]?["condition"] == "ios_too_old")
            let valid = try await mcp.call(
                "validate_template", ["project": "shop-app", "template": TemplateFixtures.forceUpdateValue()])
            #expect(valid["isError"]?.boolValue == false)
            let invalid = try await mcp.call(
                "validate_template",
                [
                    "project": "shop-app",
                    "template": ["parameters": ["x": ["defaultValue": ["value": "a"], "valueType": "NUMBER"]]],
                ])
            #expect(invalid.toolError?.hasPrefix("INVALID_ARGUMENT: ") == true)
            #expect(invalid.structured["error"]?["details"]?[0]?["field"] == "parameters.x.defaultValue.value")
            #expect(
                try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions").value["versions"]?.count
                    == 2, "nothing published")

            let fleet = try await mcp.call("fleet_versions", ["project": "shop-app", "platform": "IOS"])
            #expect(fleet.structured["enabled"]?.boolValue == true)
            let shares = try await mcp.call("parameter_shares", ["project": "shop-app"])
            #expect(shares.structured["answers"] != nil)
            let impact = try await mcp.call(
                "impact",
                ["project": "shop-app", "template": TemplateFixtures.forceUpdateValue(currentVersion: "2.4.0")])
            #expect(impact.structured["sample"]?["instances"] == 0)
            let minimum = try await mcp.call(
                "recommend_minimum_version", ["project": "shop-app", "platform": "IOS", "maxBlockedShare": 0.02])
            #expect(minimum.structured["platform"] == "IOS")
            let requests = try await mcp.call("list_change_requests", ["project": "shop-app", "state": "OPEN"])
            #expect(requests.structured["changeRequests"]?.count == 0)
            let log = try await mcp.call("get_audit_log", ["project": "shop-app", "pageSize": 2])
            #expect(log.structured["events"]?[0]?["action"] == "template.publish")
            let everything = try await mcp.call("get_audit_log")
            #expect(everything.structured["events"]?.count == 3, "two publishes and the project's creation")

            let resource = try await mcp.request("resources/read", ["uri": "remoteconfig://projects/shop-app/template"])
            let text = resource["result"]?["contents"]?[0]?["text"]?.stringValue ?? ""
            #expect(
                try JSONValue(parsing: text)["parameters"]?["current_version"]?["defaultValue"]?["value"] == "2.3.0")
            let fleetResource = try await mcp.request(
                "resources/read", ["uri": "remoteconfig://projects/shop-app/insights/versions"])
            #expect(fleetResource["result"]?["contents"]?[0]?["mimeType"] == "application/json")
            let listed = try await mcp.request("resources/list")
            #expect(listed["result"]?["resources"]?.count == 2)
            let templates = try await mcp.request("resources/templates/list")
            #expect(
                templates["result"]?["resourceTemplates"]?[0]?["uriTemplate"] == "remoteconfig://projects/{p}/template")
            let missing = try await mcp.request(
                "resources/read", ["uri": "remoteconfig://projects/no-such-app/template"])
            #expect(missing["error"]?["code"] == -32002)
        }
    }

    @Test func theCallersRoleAndProjectHoldAndBadArgumentsNameTheirField() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.createProject("other-app")
            try await app.publish("other-app", TemplateFixtures.forceUpdateValue())
            let viewer = try await app.createKey(role: "viewer", project: "shop-app")
            var mcp = MCPSession(app, token: viewer.secret)
            _ = try await mcp.initialize()
            let other = try await mcp.call("get_template", ["project": "other-app"])
            #expect(other.toolError == "PERMISSION_DENIED: the key belongs to another project")
            let projects = try await mcp.call("list_projects")
            #expect(projects.structured["projects"]?.arrayValue?.map { $0["projectId"] } == ["shop-app"])
            let validate = try await mcp.call("validate_template", ["project": "shop-app", "template": [:]])
            #expect(validate.toolError?.contains("needs the editor role") == true)
            let unknown = try await mcp.call("get_template", ["project": "shop-app", "versoin": "1"])
            #expect(unknown.toolError?.hasPrefix("INVALID_ARGUMENT: versoin is not an argument") == true)
            #expect(unknown.structured["error"]?["details"]?[0]?["field"] == "versoin")
            let missing = try await mcp.call("get_template")
            #expect(missing.structured["error"]?["details"]?[0]?["reason"] == "REQUIRED")
            let wrongType = try await mcp.call("list_versions", ["project": "shop-app", "pageSize": ["a"]])
            #expect(wrongType.structured["error"]?["details"]?[0]?["reason"] == "WRONG_TYPE")
            let noTool = try await mcp.request("tools/call", ["name": "publish", "arguments": [:]])
            #expect(noTool["error"]?["code"] == -32602)

            // Another key cannot use the viewer's session; a client key opens no admin route, /mcp included.
            let admin = MCPSession(app, token: TestApp.adminToken)
            var borrowed = admin
            borrowed.sessionID = mcp.sessionID
            #expect(try await borrowed.post(["jsonrpc": "2.0", "id": 9, "method": "tools/list"]).0.status == 404)
            let client = try await app.createKey(role: "client", project: "shop-app")
            var clientSession = MCPSession(app, token: client.secret)
            #expect(try await clientSession.post(["jsonrpc": "2.0", "id": 1, "method": "ping"]).0.status == 403)
            // A web page elsewhere cannot drive a session.
            let page = try await app.call(
                .post, "/mcp", json: ["jsonrpc": "2.0", "id": 1, "method": "ping"],
                headers: [.origin: "https://evil.example", .accept: "application/json, text/event-stream"])
            #expect(page.status == 403)
            // A request without a session that is not initialize, and a session that ended.
            var stranger = MCPSession(app, token: TestApp.adminToken)
            #expect(try await stranger.post(["jsonrpc": "2.0", "id": 1, "method": "tools/list"]).0.status == 400)
            let ended = try await app.call(
                .delete, "/mcp", headers: [HTTPField.Name("Mcp-Session-Id")!: mcp.sessionID ?? ""])
            #expect(ended.status == 404, "only its own identity ends a session")
            let deleted = try await app.call(
                .delete, "/mcp", token: viewer.secret, headers: [HTTPField.Name("Mcp-Session-Id")!: mcp.sessionID ?? ""]
            )
            #expect(deleted.status == 200)
            #expect(try await mcp.post(["jsonrpc": "2.0", "id": 10, "method": "tools/list"]).0.status == 404)
        }
    }

    @Test func oneCallersSessionsAreBoundedAndANewOneEndsItsOldest() async throws {
        try await TestApp.run { app in
            let viewer = try await app.createKey(role: "viewer")
            var first = MCPSession(app, token: viewer.secret)
            _ = try await first.initialize()
            var others: [MCPSession] = []
            for _ in 0..<16 {
                var session = MCPSession(app, token: viewer.secret)
                _ = try await session.initialize()
                others.append(session)
            }
            #expect(try await first.post(["jsonrpc": "2.0", "id": 5, "method": "tools/list"]).0.status == 404)
            #expect(try await others[0].request("tools/list")["result"]?["tools"]?.count == Self.tools.count)
            // Another caller's sessions are not touched.
            var admin = MCPSession(app, token: TestApp.adminToken)
            _ = try await admin.initialize()
            #expect(try await others[15].request("ping")["result"] != nil)
        }
    }
}
