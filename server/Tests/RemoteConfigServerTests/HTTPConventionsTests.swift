import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigAPI
import RemoteConfigTestSupport
import Testing

/// The conventions every route shares: error shape, body limits, 405, request ids.
@Suite struct HTTPConventionsTests {
    @Test func unknownRouteIsA404WithTheErrorShape() async throws {
        try await TestApp.run { app in
            let reply = try await app.call(.get, "/v1/nothing-here")
            #expect(reply.status == 404)
            let error = try reply.decode(ErrorBody.self).error
            #expect(error.code == 404)
            #expect(error.status == "NOT_FOUND")
            #expect(!error.message.isEmpty)
            #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    @Test func wrongMethodOnAKnownPathIs405WithAllow() async throws {
        try await TestApp.run { app in
            let reply = try await app.call(.patch, "/v1/projects")
            #expect(reply.status == 405)
            #expect(reply.headers[.allow]?.contains("GET") == true)
            #expect(reply.headers[.allow]?.contains("POST") == true)
            #expect(reply.errorStatus == "METHOD_NOT_ALLOWED")
        }
    }

    /// A stream has no headers-only form: HEAD is 405 (a generated HEAD opened a subscription nobody read),
    /// while HEAD of other GET routes still works.
    @Test func headOnAStreamIs405() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            for _ in 0..<3 {
                let reply = try await app.call(
                    .head, "/v1/projects/shop-app/remoteConfig:stream", token: nil,
                    headers: [.init("X-API-Key")!: client.secret])
                #expect(reply.status == 405)
                #expect(reply.headers[.allow] == "GET")
            }
            #expect(app.streams.count == 0, "no subscription was opened")
            #expect(try await app.call(.head, "/v1/projects/shop-app").status == 200)
        }
    }

    @Test func malformedJSONIs400() async throws {
        try await TestApp.run { app in
            for raw in ["{", "not json", "{\"projectId\": }", "[1, 2]", "\"text\""] {
                let reply = try await app.call(
                    .post, "/v1/projects", raw: ByteBuffer(string: raw), headers: [.contentType: "application/json"])
                #expect(reply.status == 400, "\(raw)")
                #expect(reply.errorStatus == "INVALID_ARGUMENT")
                #expect(reply.errorFields == ["body"])
            }
        }
    }

    @Test func bodyOverOneMebibyteIs413() async throws {
        try await TestApp.run { app in
            let name = String(repeating: "x", count: (1 << 20) + 10)
            let reply = try await app.call(
                .post, "/v1/projects", body: CreateProjectRequest(projectId: "big-app", displayName: name))
            #expect(reply.status == 413)
            #expect(reply.errorStatus == "PAYLOAD_TOO_LARGE")
            #expect(try await app.call(.get, "/v1/projects/big-app").status == 404)
        }
    }

    @Test func everyResponseCarriesARequestID() async throws {
        try await TestApp.run { app in
            let ok = try await app.call(.get, "/healthz", token: nil)
            let failed = try await app.call(.get, "/v1/projects", token: nil)
            let first = try #require(ok.headers[.init("X-Request-Id")!])
            let second = try #require(failed.headers[.init("X-Request-Id")!])
            #expect(first != second)
        }
    }

    /// Request ids must not reveal request volume: a counter would rise by one per request.
    @Test func requestIDsAreRandomNotACounter() async throws {
        try await TestApp.run { app in
            var ids: [UInt64] = []
            for _ in 0..<20 {
                let reply = try await app.call(.get, "/healthz", token: nil)
                let id = try #require(reply.headers[.init("X-Request-Id")!])
                #expect(id.count == 16 && id.allSatisfy(\.isHexDigit), "\(id)")
                ids.append(try #require(UInt64(id, radix: 16)))
            }
            #expect(Set(ids).count == ids.count)
            let steps = zip(ids, ids.dropFirst()).map { $1 &- $0 }
            #expect(!steps.allSatisfy { $0 < 1_000 }, "ids rise like a counter: \(ids)")
            // A proxy's well-formed id is kept.
            let proxied = try await app.call(
                .get, "/healthz", token: nil, headers: [.init("X-Request-Id")!: "proxy-7f3a"])
            #expect(proxied.headers[.init("X-Request-Id")!] == "proxy-7f3a")
        }
    }

    @Test func healthAndReadiness() async throws {
        try await TestApp.run { app in
            let health = try await app.call(.get, "/healthz", token: nil)
            let ready = try await app.call(.get, "/readyz", token: nil)
            #expect(health.status == 200)
            #expect(ready.status == 200)
        }
    }
}
