import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// Deep nesting, huge strings, invalid UTF-8 and SQL-looking text: answered with 400 or stored literally.
@Suite struct HostileInputTests {
    static let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)

    @Test func deeplyNestedJSONIsRejectedEverywhere() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            var clientHeaders = HTTPFields()
            clientHeaders[.init("X-API-Key")!] = client.secret
            let bodies: [(HTTPRequest.Method, String, HTTPFields, String?)] = [
                (.post, "/v1/projects", [:], nil),
                (.post, "/v1/apiKeys", [:], nil),
                (.put, "/v1/projects/shop-app/remoteConfig", [.ifMatch: "*"], nil),
                (.put, "/v1/projects/shop-app/remoteConfig/draft", [.ifMatch: "*"], nil),
                (.post, "/v1/projects/shop-app/remoteConfig:rollback", [:], nil),
                (.post, "/v1/projects/shop-app/remoteConfig:fetch", clientHeaders, "client"),
            ]
            for (method, path, headers, kind) in bodies {
                let body = #"{"parameters": "# + Self.deep + "}"
                let reply = try await app.call(
                    method, path, token: kind == nil ? TestApp.adminToken : nil, raw: ByteBuffer(string: body),
                    headers: headers)
                #expect(reply.status == 400, "\(method) \(path): \(reply.status)")
            }
        }
    }

    @Test func invalidUTF8IsRejected() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            var bytes = Array(#"{"parameters": {"a": {"defaultValue": {"value": ""#.utf8)
            bytes += [0xFF, 0xFE, 0xC3]
            bytes += Array(#""}}}}"#.utf8)
            let reply = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig", raw: ByteBuffer(bytes: bytes), headers: [.ifMatch: "*"])
            #expect(reply.status == 400)
        }
    }

    @Test func sqlLookingTextIsStoredLiterally() async throws {
        try await TestApp.run { app in
            let sneaky = "x'); DROP TABLE template_versions; --"
            let created = try await app.call(
                .post, "/v1/projects", body: CreateProjectRequest(projectId: "shop-app", displayName: sneaky))
            #expect(try created.decode(Project.self).displayName == sneaky)
            let template: JSONValue = [
                "conditions": [["name": .string(sneaky), "expression": "true"]],
                "parameters": [
                    "text": [
                        "defaultValue": ["value": .string(sneaky)], "description": .string(sneaky),
                        "conditionalValues": .object([sneaky: ["value": "\\\"; SELECT pg_sleep(10); --"]]),
                    ]
                ],
            ]
            let published = try await app.publish("shop-app", template)
            #expect(published.status == 200)
            let read = try await app.call(.get, "/v1/projects/shop-app/remoteConfig")
            let text = read.value["parameters"]?["text"]
            #expect(text?["defaultValue"]?["value"] == .string(sneaky))
            #expect(text?["description"] == .string(sneaky))
            let key = try await app.call(
                .post, "/v1/apiKeys", body: CreateAPIKeyRequest(displayName: sneaky, role: "viewer"))
            #expect(try key.decode(APIKey.self).displayName == sneaky)
            let versions = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions")
            #expect(versions.value["versions"]?.arrayValue?.count == 1)
        }
    }

    @Test func hugeValuesAreBoundedByTheLimits() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            // Under 1 MiB of body but over 1,000,000 characters of values in all.
            let big = JSONValue.string(String(repeating: "x", count: 500_001))
            let template: JSONValue = [
                "parameters": ["a": ["defaultValue": ["value": big]], "b": ["defaultValue": ["value": big]]]
            ]
            let tooMuch = try await app.publish("shop-app", template)
            #expect(tooMuch.status == 400)
            #expect(tooMuch.errorReasons == ["LIMIT_EXCEEDED"])
            let oneString = JSONValue.string(String(repeating: "x", count: 1 << 20))
            let overBody = try await app.publish(
                "shop-app", ["parameters": ["a": ["defaultValue": ["value": oneString]]]])
            #expect(overBody.status == 413)
            let fine = try await app.publish(
                "shop-app",
                ["parameters": ["a": ["defaultValue": ["value": .string(String(repeating: "x", count: 300_000))]]]])
            #expect(fine.status == 200)
        }
    }

    /// PostgreSQL text cannot hold U+0000: every text field that is stored as text answers 400 naming the
    /// field, and nothing is stored. (Template values are stored as escaped JSON, but the XML defaults files
    /// cannot carry U+0000, so a value refuses it too.)
    @Test func nulInStoredTextIsA400NamingTheField() async throws {
        try await TestApp.run { app in
            let nul = "a\u{0}b"
            let project = try await app.call(
                .post, "/v1/projects", body: CreateProjectRequest(projectId: "nul-app", displayName: nul))
            #expect(project.status == 400)
            #expect(project.errorFields == ["displayName"])
            #expect(try await app.call(.get, "/v1/projects/nul-app").status == 404)
            let key = try await app.call(
                .post, "/v1/apiKeys", body: CreateAPIKeyRequest(displayName: nul, role: "viewer"))
            #expect(key.status == 400)
            #expect(key.errorFields == ["displayName"])

            try await app.createProject("shop-app")
            let publish = try await app.publish(
                "shop-app",
                [
                    "version": ["description": .string(nul)],
                    "parameters": ["a": ["defaultValue": ["value": .string(nul)]]],
                ])
            #expect(publish.status == 400)
            #expect(publish.errorFields.sorted() == ["parameters.a.defaultValue.value", "version.description"])
            let refused = try await app.publish(
                "shop-app", ["parameters": ["a": ["defaultValue": ["value": .string(nul)]]]])
            #expect(refused.errorReasons == ["INVALID_CHARACTER"], "XML cannot carry U+0000")
            let tab: JSONValue = "a\tb"
            let value = try await app.publish("shop-app", ["parameters": ["a": ["defaultValue": ["value": tab]]]])
            #expect(value.status == 200, "a value may hold a tab")
            let read = try await app.call(.get, "/v1/projects/shop-app/remoteConfig")
            #expect(read.value["parameters"]?["a"]?["defaultValue"]?["value"] == tab)

            let draft = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig/draft", json: ["parameters": [:]], headers: [.ifMatch: "*"])
            #expect(draft.status == 200)
            let fromDraft = try await app.call(
                .post, "/v1/projects/shop-app/remoteConfig/draft:publish?force=true",
                body: PublishDraftRequest(description: nul),
                headers: [.ifMatch: "*"])
            #expect(fromDraft.status == 400)
            #expect(fromDraft.errorFields == ["description"])
            let versions = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions")
            #expect(versions.value["versions"]?.arrayValue?.count == 1, "nothing was published")
        }
    }

    /// `validateOnly` and `force` take `true` or `false` only: a typo is 400, never a real publish.
    @Test func booleanQueryParametersAreStrict() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            for spelling in ["TRUE", "1", "yes", "null", ""] {
                let reply = try await app.call(
                    .put, "/v1/projects/shop-app/remoteConfig?validateOnly=\(spelling)", json: ["parameters": [:]],
                    headers: [.ifMatch: "*"])
                #expect(reply.status == 400, "validateOnly=\(spelling)")
                #expect(reply.errorFields == ["validateOnly"])
            }
            let versions = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions")
            #expect(versions.value["versions"]?.arrayValue?.count == 0, "nothing was published: \(versions.text)")
            let dryRun = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig?validateOnly=true", json: ["parameters": [:]],
                headers: [.ifMatch: "*"])
            #expect(dryRun.status == 200)
            let draft = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig/draft", json: ["parameters": [:]], headers: [.ifMatch: "*"])
            #expect(draft.status == 200)
            let forced = try await app.call(
                .post, "/v1/projects/shop-app/remoteConfig/draft:publish?force=yes", json: [:], headers: [.ifMatch: "*"]
            )
            #expect(forced.status == 400)
            #expect(forced.errorFields == ["force"])
        }
    }
}
