import Foundation
import HTTPTypes
import RemoteConfigServer
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// Errors reach the client through the one mapping (`APIError(mapping:)`), whichever way the request came
/// in, each with its status, name, message and details as API.md writes them.
@Suite struct ErrorMappingTests {
    /// A stale draft ETag on `draft:publish` is about the draft, not the published template.
    @Test func aStaleDraftETagOnPublishNamesTheDraft() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let path = "/v1/projects/shop-app/remoteConfig/draft"
            let first = try await app.call(
                .put, path, json: TemplateFixtures.forceUpdateValue(), headers: [.ifMatch: "*"])
            let staleETag = try #require(first.headers[.eTag])
            let second = try await app.call(
                .put, path, json: TemplateFixtures.forceUpdateValue(currentVersion: "2.4.0"),
                headers: [.ifMatch: staleETag])
            #expect(second.status == 200)
            let published = try await app.call(
                .post, path + ":publish", json: [:], headers: [.ifMatch: staleETag])
            #expect(published.status == 412)
            #expect(published.errorStatus == "FAILED_PRECONDITION")
            #expect(published.errorFields == ["If-Match"])
            #expect(published.errorReasons == ["ETAG_MISMATCH"])
            let message = published.errorMessage ?? ""
            #expect(message.contains("the draft changed since you read it"), "\(message)")
            #expect(!message.contains("published template"), "\(message)")
        }
    }

    @Test func aStalePublishedETagNamesThePublishedTemplate() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "2.4.0"))
            let stale = try await app.publish(
                "shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "2.5.0"), ifMatch: "\"etag-shop-app-1\"")
            #expect(stale.status == 412)
            #expect(stale.errorStatus == "FAILED_PRECONDITION")
            #expect(stale.errorReasons == ["ETAG_MISMATCH"])
            #expect(stale.text.contains("the published template changed since you read it"))
        }
    }

    @Test func aStaleDraftETagOnSaveNamesTheDraft() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let path = "/v1/projects/shop-app/remoteConfig/draft"
            let first = try await app.call(
                .put, path, json: TemplateFixtures.forceUpdateValue(), headers: [.ifMatch: "*"])
            let staleETag = try #require(first.headers[.eTag])
            try await app.call(.put, path, json: TemplateFixtures.forceUpdateValue(), headers: [.ifMatch: staleETag])
            let stale = try await app.call(
                .put, path, json: TemplateFixtures.forceUpdateValue(), headers: [.ifMatch: staleETag])
            #expect(stale.status == 412)
            #expect(stale.errorReasons == ["ETAG_MISMATCH"])
            #expect(stale.text.contains("the draft changed since you read it"))
        }
    }

    @Test func anOutdatedDraftBaseIsAbortedWithItsDetail() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let path = "/v1/projects/shop-app/remoteConfig/draft"
            let saved = try await app.call(
                .put, path, json: TemplateFixtures.forceUpdateValue(), headers: [.ifMatch: "*"])
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "2.5.0"))
            let aborted = try await app.call(
                .post, path + ":publish", json: [:], headers: [.ifMatch: try #require(saved.headers[.eTag])])
            #expect(aborted.status == 409)
            #expect(aborted.errorStatus == "ABORTED")
            #expect(aborted.errorFields == ["baseVersionNumber"])
            #expect(aborted.errorReasons == ["BASE_VERSION_CHANGED"])
            #expect(aborted.text.contains("version 1 was published after this draft's base version 0"))
        }
    }

    @Test func aTakenProjectIdIsAConflictNamingTheField() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let again = try await app.call(.post, "/v1/projects", json: ["projectId": "shop-app"])
            #expect(again.status == 409)
            #expect(again.errorStatus == "ALREADY_EXISTS")
            #expect(again.errorFields == ["projectId"])
            #expect(again.errorReasons == ["ALREADY_EXISTS"])
            #expect(again.text.contains("project shop-app already exists"))
        }
    }

    @Test func aKeyForAnUnknownProjectIsNotFoundNamingTheField() async throws {
        try await TestApp.run { app in
            let reply = try await app.call(.post, "/v1/apiKeys", json: ["role": "client", "project": "no-such-app"])
            #expect(reply.status == 404)
            #expect(reply.errorStatus == "NOT_FOUND")
            #expect(reply.errorFields == ["project"])
            #expect(reply.errorReasons == ["PROJECT_NOT_FOUND"])
            #expect(reply.text.contains("project no-such-app does not exist"))
        }
    }

    @Test func discardingNoDraftIsNotFound() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let reply = try await app.call(.delete, "/v1/projects/shop-app/remoteConfig/draft")
            #expect(reply.status == 404)
            #expect(reply.errorStatus == "NOT_FOUND")
            #expect(reply.text.contains("draft of shop-app not found"))
        }
    }

    /// An error nobody expected on the fetch path is the server's fault, as on every route: 500 `INTERNAL`,
    /// not a 503 that tells the client to come back because the server is stopping (it is not).
    @Test func anUnexpectedErrorOnTheFetchPathIsAnInternalError() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            // A key this server has not seen is looked up in the database, where the keys' table is gone: an
            // SQL error that is neither a database outage nor anything the request did.
            try await app.database.run { client in
                _ = try await client.query("ALTER TABLE api_keys RENAME TO api_keys_elsewhere")
            }
            let fetch = try await ClientCalls.fetch(
                app, key: "rc_client_neverSeenBefore0000000000", ["appInstanceId": "i"])
            #expect(fetch.status == 500)
            #expect(fetch.errorStatus == "INTERNAL")
            #expect(fetch.headers[.retryAfter] == nil)
            let ofrep = try await app.call(
                .post, "/ofrep/v1/evaluate/flags", token: "rc_client_neverSeenBefore0000000000",
                json: ["context": ["targetingKey": "i"]])
            #expect(ofrep.status == 500)
            #expect(!ofrep.text.contains("shutting down"))
        }
    }

    /// The router's requests get their id, access-log line and error answer from separate middlewares; an
    /// error answer still carries the request id it was given.
    @Test func anErrorAnswerCarriesTheRequestIDItWasGiven() async throws {
        try await TestApp.run { app in
            let reply = try await app.call(
                .get, "/v1/projects/no-such-app", headers: [HTTPField.Name("X-Request-Id")!: "proxy-id.1"])
            #expect(reply.status == 404)
            #expect(reply.headers[HTTPField.Name("X-Request-Id")!] == "proxy-id.1")
            let refused = try await app.call(.patch, "/healthz")
            #expect(refused.status == 405)
            #expect(refused.headers[HTTPField.Name("X-Request-Id")!]?.count == 16)
        }
    }
}
