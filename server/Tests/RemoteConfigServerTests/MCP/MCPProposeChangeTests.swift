import Foundation
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// `propose_change`: an editor opens a change request, answered with its diff and impact; nothing is published;
/// a viewer and another project's key are refused with the API's message; the audit entry says it came via MCP.
@Suite struct MCPProposeChangeTests {
    static let template: JSONValue = [
        "conditions": [["name": "ios", "expression": "device.os == 'ios'"]],
        "parameters": [
            "min_supported_version": ["defaultValue": ["value": "2.0.0"], "valueType": "STRING"],
            "current_version": ["defaultValue": ["value": "2.3.0"], "valueType": "STRING"],
        ],
    ]

    static func fleet(_ app: TestApp.Session) async throws {
        try await InsightSampleRows.insert(
            app.database, project: "shop-app",
            contexts: InsightSampleRows.fleet("old", 30, platform: "IOS", version: "2.1.0")
                + InsightSampleRows.fleet("new", 10, platform: "IOS", version: "2.3.0"))
    }

    @Test func anEditorsEditsOpenAChangeRequestAnsweredWithItsDiffAndImpact() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", Self.template)
            try await Self.fleet(app)
            let editor = try await app.createKey(role: "editor", project: "shop-app")
            var mcp = MCPSession(app, token: editor.secret)
            _ = try await mcp.initialize()
            let proposed = try await mcp.call(
                "propose_change",
                [
                    "project": "shop-app", "description": "Raise the minimum to 2.3",
                    "edits": [
                        ["set": ["parameter": "min_supported_version", "value": "2.3.0"]],
                        ["set": ["parameter": "current_version", "value": "2.4.0", "condition": "ios"]],
                    ],
                ])
            #expect(proposed["isError"]?.boolValue == false, "\(proposed.jsonString)")
            let request = proposed.structured["changeRequest"] ?? .null
            #expect(request["state"] == "OPEN")
            #expect(request["description"] == "Raise the minimum to 2.3")
            #expect(request["baseVersionNumber"] == "1")
            let parameters = request["template"]?["parameters"]
            #expect(parameters?["min_supported_version"]?["defaultValue"]?["value"] == "2.3.0")
            #expect(parameters?["current_version"]?["conditionalValues"]?["ios"]?["value"] == "2.4.0")
            #expect(request["diff"]?.jsonString.contains("min_supported_version") == true)
            let impact = proposed.structured["impact"] ?? .null
            #expect(impact["sample"]?["instances"] == 40)
            let minimum = impact["changes"]?.arrayValue?.first { $0["parameter"] == "min_supported_version" }
            #expect(minimum?["from"] == "2.0.0" && minimum?["to"] == "2.3.0")
            #expect(minimum?["instances"] == 40)
            // The proposed template keeps the published one's parameter order (MCP's structured content cannot).
            let id = try #require(request["name"]?.stringValue?.dropFirst("changeRequests/".count))
            let stored = try await app.call(.get, "/v1/projects/shop-app/remoteConfig/changeRequests/\(id)")
            #expect(stored.value["template"]?["parameters"]?.keys == ["min_supported_version", "current_version"])

            // Nothing was published; the change request waits for a person, and the audit log says it came via MCP.
            let versions = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions")
            #expect(versions.value["versions"]?.count == 1)
            let log = try await app.call(.get, "/v1/projects/shop-app/auditLog")
            let created = log.value["events"]?.arrayValue?.first { $0["action"] == "changeRequest.create" }
            #expect(created?["detail"]?["via"] == "mcp")
            #expect(created?["actorKey"]?.stringValue == "apiKeys/\(editor.id)")
            let publish = log.value["events"]?.arrayValue?.first { $0["action"] == "template.publish" }
            #expect(publish?["detail"]?["via"] == nil, "a direct API call says nothing of MCP")

            let whole = try await mcp.call(
                "propose_change", ["project": "shop-app", "description": "Whole", "template": Self.template])
            #expect(whole.structured["changeRequest"]?["state"] == "OPEN")
            // A time would make it publish by itself where no approval is required: the tool takes none.
            let timed = try await mcp.call(
                "propose_change",
                [
                    "project": "shop-app", "description": "Later", "template": Self.template,
                    "publishTime": "2099-01-01T00:00:00Z",
                ])
            #expect(timed.structured["error"]?["details"]?[0]?["field"] == "publishTime")
            let open = try await mcp.call("list_change_requests", ["project": "shop-app"])
            #expect(open.structured["changeRequests"]?.count == 2)
        }
    }

    @Test func aViewerAnotherProjectAndBadEditsAreRefusedAndOpenNothing() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.createProject("other-app")
            try await app.publish("shop-app", Self.template)
            let edit: JSONValue = [["set": ["parameter": "min_supported_version", "value": "2.3.0"]]]
            let viewer = try await app.createKey(role: "viewer", project: "shop-app")
            var asViewer = MCPSession(app, token: viewer.secret)
            _ = try await asViewer.initialize()
            let refused = try await asViewer.call(
                "propose_change", ["project": "shop-app", "description": "Raise", "edits": edit])
            #expect(
                refused.toolError
                    == "PERMISSION_DENIED: this route needs the editor role; the key has viewer on project shop-app")
            #expect(refused.structured["error"]?["code"] == 403)

            let otherEditor = try await app.createKey(role: "editor", project: "other-app")
            var asOther = MCPSession(app, token: otherEditor.secret)
            _ = try await asOther.initialize()
            let elsewhere = try await asOther.call(
                "propose_change", ["project": "shop-app", "description": "Raise", "edits": edit])
            #expect(elsewhere.toolError == "PERMISSION_DENIED: the key belongs to another project")

            let editor = try await app.createKey(role: "editor", project: "shop-app")
            var asEditor = MCPSession(app, token: editor.secret)
            _ = try await asEditor.initialize()
            let unknown = try await asEditor.call(
                "propose_change",
                ["project": "shop-app", "description": "x", "edits": [["set": ["parameter": "nope", "value": "1"]]]])
            #expect(unknown.structured["error"]?["details"]?[0]?["field"] == "edits[0].parameter")
            #expect(unknown.toolError?.contains("no parameter nope") == true)
            let both = try await asEditor.call(
                "propose_change", ["project": "shop-app", "description": "x", "edits": edit, "template": Self.template])
            #expect(both.structured["error"]?["details"]?[0]?["reason"] == "CONFLICT")
            let verb = try await asEditor.call(
                "propose_change", ["project": "shop-app", "description": "x", "edits": [["publish": [:]]]])
            #expect(verb.structured["error"]?["details"]?[0]?["reason"] == "INVALID_EDIT")
            let invalid = try await asEditor.call(
                "propose_change",
                [
                    "project": "shop-app", "description": "x",
                    "edits": [["set": ["parameter": "flag", "value": "maybe", "valueType": "BOOLEAN"]]],
                ])
            #expect(invalid.toolError?.hasPrefix("INVALID_ARGUMENT") == true, "the API's validation, as a publish")

            let requests = try await app.call(.get, "/v1/projects/shop-app/remoteConfig/changeRequests")
            #expect(requests.value["changeRequests"]?.count == 0)
        }
    }
}
