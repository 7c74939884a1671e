import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// Free text the server stores is bounded: a version description at 256 characters (Firebase's limit),
/// display names at 200 and without control characters. Beyond that: 400 naming the field, nothing stored.
@Suite struct StoredTextLimitsTests {
    static func text(_ count: Int) -> String { String(repeating: "d", count: count) }

    @Test func versionDescriptionIsAtMost256Characters() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            var template = try #require(TemplateFixtures.forceUpdateValue().objectValue)
            for query in ["", "?validateOnly=true"] {
                template["version"] = ["description": .string(Self.text(257))]
                let long = try await app.call(
                    .put, "/v1/projects/shop-app/remoteConfig" + query, json: .object(template),
                    headers: [.ifMatch: "*"])
                #expect(long.status == 400, "\(query)")
                #expect(long.errorFields == ["version.description"])
                #expect(long.errorReasons == ["TOO_LONG"])
            }
            // One character with many combining marks counts each mark: storage is what is bounded.
            template["version"] = ["description": .string("e" + String(repeating: "\u{301}", count: 256))]
            #expect(try await app.publish("shop-app", .object(template)).errorFields == ["version.description"])
            let versions = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions")
            #expect(versions.value["versions"]?.arrayValue?.count == 0, "nothing was published")
            template["version"] = ["description": .string(Self.text(256))]
            #expect(try await app.publish("shop-app", .object(template)).status == 200)
        }
    }

    @Test func draftPublishDescriptionIsAtMost256Characters() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let path = "/v1/projects/shop-app/remoteConfig/draft"
            let saved = try await app.call(
                .put, path, json: TemplateFixtures.forceUpdateValue(), headers: [.ifMatch: "*"])
            let etag = try #require(saved.headers[.eTag])
            let long = try await app.call(
                .post, path + ":publish", json: ["description": .string(Self.text(257))], headers: [.ifMatch: etag])
            #expect(long.status == 400)
            #expect(long.errorFields == ["description"])
            #expect(long.errorReasons == ["TOO_LONG"])
            #expect(try await app.call(.get, path).headers[.eTag] == etag, "the draft is still there")
            let fine = try await app.call(
                .post, path + ":publish", json: ["description": .string(Self.text(256))], headers: [.ifMatch: etag])
            #expect(fine.status == 200)
        }
    }

    @Test func changeRequestDescriptionsAndReviewCommentsAreBounded() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let path = "/v1/projects/shop-app/remoteConfig/changeRequests"
            let template = TemplateFixtures.forceUpdateValue()
            let long = try await app.call(
                .post, path, body: CreateChangeRequestRequest(description: Self.text(257), template: template))
            #expect(long.status == 400)
            #expect(long.errorFields == ["description"])
            #expect(long.errorReasons == ["TOO_LONG"])
            #expect(try await app.call(.get, path).text == #"{"changeRequests":[]}"#, "nothing was stored")
            // Made before the request: a key its author mints afterwards could not approve it.
            let reviewer = try await app.createKey(role: "editor", project: "shop-app", name: "reviewer").secret
            let created = try await app.call(
                .post, path, body: CreateChangeRequestRequest(description: Self.text(256), template: template))
            #expect(created.status == 201)
            let name = try created.decode(ChangeRequest.self).name
            let request = path + "/" + name.dropFirst("changeRequests/".count)
            for action in [":approve", ":reject"] {
                let reply = try await app.call(
                    .post, request + action, token: reviewer, body: ReviewRequest(comment: Self.text(1001)))
                #expect(reply.status == 400, "\(action)")
                #expect(reply.errorFields == ["comment"])
                #expect(reply.errorReasons == ["TOO_LONG"])
            }
            let untouched = try await app.call(.get, request)
            #expect(try untouched.decode(ChangeRequest.self).state == "OPEN")
            #expect(try untouched.decode(ChangeRequest.self).approvals.isEmpty)
            let fine = try await app.call(
                .post, request + ":approve", token: reviewer, body: ReviewRequest(comment: Self.text(1000)))
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
                    .post, "/v1/projects", body: CreateProjectRequest(projectId: "shop-app", displayName: name))
                #expect(reply.status == 400, "\(name.debugDescription)")
                #expect(reply.errorFields == ["displayName"])
                #expect(reply.errorReasons == [reason])
            }
            #expect(try await app.call(.get, "/v1/projects/shop-app").status == 404, "nothing was stored")
            let fine = try await app.call(
                .post, "/v1/projects",
                body: CreateProjectRequest(projectId: "shop-app", displayName: "Shöp 🛒 " + Self.text(190)))
            #expect(fine.status == 201)
        }
    }

    @Test func keyDisplayNamesAreBoundedAndSingleLine() async throws {
        try await TestApp.run { app in
            for name in [Self.text(201), "bootstrap admin\r\n", "a\u{7f}b"] {
                let reply = try await app.call(
                    .post, "/v1/apiKeys", body: CreateAPIKeyRequest(displayName: name, role: "viewer"))
                #expect(reply.status == 400, "\(name.debugDescription)")
                #expect(reply.errorFields == ["displayName"])
            }
            let keys = try await app.call(.get, "/v1/apiKeys")
            #expect(try keys.decode(APIKeyList.self).apiKeys.count == 1, "only the bootstrap key: \(keys.text)")
            let fine = try await app.call(
                .post, "/v1/apiKeys", body: CreateAPIKeyRequest(displayName: Self.text(200), role: "viewer"))
            #expect(fine.status == 201)
        }
    }
}
