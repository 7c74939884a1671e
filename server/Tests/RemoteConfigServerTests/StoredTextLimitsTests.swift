import Foundation
import HTTPTypes
import RemoteConfigTestSupport
import Testing

/// Free text the server stores is bounded: a version description at 256 characters (Firebase's limit),
/// display names at 200 and without control characters. Beyond that: 400 naming the field, nothing stored.
@Suite struct StoredTextLimitsTests {
    static func text(_ count: Int) -> String { String(repeating: "d", count: count) }

    @Test func versionDescriptionIsAtMost256Characters() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            var template = TemplateFixtures.forceUpdate()
            for query in ["", "?validateOnly=true"] {
                template["version"] = ["description": Self.text(257)]
                let long = try await app.call(
                    .put, "/v1/projects/shop-app/remoteConfig" + query, json: template, headers: [.ifMatch: "*"])
                #expect(long.status == 400, "\(query)")
                #expect(long.errorFields == ["version.description"])
                #expect(long.errorReasons == ["TOO_LONG"])
            }
            // One character with many combining marks counts each mark: storage is what is bounded.
            template["version"] = ["description": "e" + String(repeating: "\u{301}", count: 256)]
            #expect(try await app.publish("shop-app", template).errorFields == ["version.description"])
            let versions = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions")
            #expect((versions.json["versions"] as? [Any])?.count == 0, "nothing was published")
            template["version"] = ["description": Self.text(256)]
            #expect(try await app.publish("shop-app", template).status == 200)
        }
    }

    @Test func draftPublishDescriptionIsAtMost256Characters() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let path = "/v1/projects/shop-app/remoteConfig/draft"
            let saved = try await app.call(.put, path, json: TemplateFixtures.forceUpdate(), headers: [.ifMatch: "*"])
            let etag = try #require(saved.headers[.eTag])
            let long = try await app.call(
                .post, path + ":publish", json: ["description": Self.text(257)], headers: [.ifMatch: etag])
            #expect(long.status == 400)
            #expect(long.errorFields == ["description"])
            #expect(long.errorReasons == ["TOO_LONG"])
            #expect(try await app.call(.get, path).headers[.eTag] == etag, "the draft is still there")
            let fine = try await app.call(
                .post, path + ":publish", json: ["description": Self.text(256)], headers: [.ifMatch: etag])
            #expect(fine.status == 200)
        }
    }

    @Test func changeRequestDescriptionsAndReviewCommentsAreBounded() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let path = "/v1/projects/shop-app/remoteConfig/changeRequests"
            let template = TemplateFixtures.forceUpdate()
            let long = try await app.call(.post, path, json: ["description": Self.text(257), "template": template])
            #expect(long.status == 400)
            #expect(long.errorFields == ["description"])
            #expect(long.errorReasons == ["TOO_LONG"])
            #expect(try await app.call(.get, path).text == #"{"changeRequests":[]}"#, "nothing was stored")
            // Made before the request: a key its author mints afterwards could not approve it.
            let reviewer = try await app.createKey(role: "editor", project: "shop-app", name: "reviewer").secret
            let created = try await app.call(.post, path, json: ["description": Self.text(256), "template": template])
            #expect(created.status == 201)
            let name = try #require(created.json["name"] as? String)
            let request = path + "/" + name.dropFirst("changeRequests/".count)
            for action in [":approve", ":reject"] {
                let reply = try await app.call(
                    .post, request + action, token: reviewer, json: ["comment": Self.text(1001)])
                #expect(reply.status == 400, "\(action)")
                #expect(reply.errorFields == ["comment"])
                #expect(reply.errorReasons == ["TOO_LONG"])
            }
            let untouched = try await app.call(.get, request)
            #expect(untouched.json["state"] as? String == "OPEN")
            #expect((untouched.json["approvals"] as? [Any])?.isEmpty == true)
            let fine = try await app.call(
                .post, request + ":approve", token: reviewer, json: ["comment": Self.text(1000)])
            #expect(fine.status == 200)
        }
    }

    @Test func projectDisplayNamesAreBoundedAndSingleLine() async throws {
        try await TestApp.run { app in
            let cases: [(String, String)] = [
                (Self.text(201), "TOO_LONG"), ("Shop\r\nforged: line", "INVALID_CHARACTER"),
                ("Shop\nApp", "INVALID_CHARACTER"), ("tab\there", "INVALID_CHARACTER"),
                ("c1\u{85}next line", "INVALID_CHARACTER"),
            ]
            for (name, reason) in cases {
                let reply = try await app.call(
                    .post, "/v1/projects", json: ["projectId": "shop-app", "displayName": name])
                #expect(reply.status == 400, "\(name.debugDescription)")
                #expect(reply.errorFields == ["displayName"])
                #expect(reply.errorReasons == [reason])
            }
            #expect(try await app.call(.get, "/v1/projects/shop-app").status == 404, "nothing was stored")
            let fine = try await app.call(
                .post, "/v1/projects", json: ["projectId": "shop-app", "displayName": "Shöp 🛒 " + Self.text(190)])
            #expect(fine.status == 201)
        }
    }

    @Test func keyDisplayNamesAreBoundedAndSingleLine() async throws {
        try await TestApp.run { app in
            for name in [Self.text(201), "bootstrap admin\r\n", "a\u{7f}b"] {
                let reply = try await app.call(.post, "/v1/apiKeys", json: ["role": "viewer", "displayName": name])
                #expect(reply.status == 400, "\(name.debugDescription)")
                #expect(reply.errorFields == ["displayName"])
            }
            let keys = try await app.call(.get, "/v1/apiKeys")
            #expect((keys.json["apiKeys"] as? [Any])?.count == 1, "only the bootstrap key: \(keys.text)")
            let fine = try await app.call(
                .post, "/v1/apiKeys", json: ["role": "viewer", "displayName": Self.text(200)])
            #expect(fine.status == 201)
        }
    }
}
