import Foundation
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// Browsers on the origins of `--cors-origins` may call fetch, OFREP and the stream; admin routes and other
/// origins get no CORS headers. A connection's first plain request is answered by the fronts ahead of NIO's
/// parser, the rest by the router: both must answer alike, so every check is made both ways.
@Suite struct CORSTests {
    static let allowed = "http://127.0.0.1:5555"
    static let unlisted = "http://127.0.0.1:6666"

    static func withApp(_ body: @escaping @Sendable (TestApp.Session, String) async throws -> Void) async throws {
        let policy = try CORSPolicy(parsing: "https://shop.example.com, \(allowed)/")
        let configure: (inout ServerConfiguration) -> Void = { $0.corsOrigins = policy }
        try await TestApp.live(configure: configure) { app in
            try await app.createProject("shop-app")
            try await ClientCalls.publish(app, "1.0.0")
            let key = try await app.createKey(role: "client", project: "shop-app").secret
            try await body(app, key)
        }
    }

    /// The client routes, as requests from `origin` with `key`.
    static func clientRequests(origin: String, key: String) -> [(name: String, request: String)] {
        let body = #"{"appInstanceId":"i"}"#
        let ofrep = #"{"context":{"targetingKey":"i"}}"#
        func post(_ path: String, _ body: String) -> String {
            "POST \(path) HTTP/1.1\r\nHost: t\r\nOrigin: \(origin)\r\nX-API-Key: \(key)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }
        return [
            ("fetch", post("/v1/projects/shop-app/remoteConfig:fetch", body)),
            ("OFREP bulk", post("/ofrep/v1/evaluate/flags", ofrep)),
            ("OFREP single", post("/ofrep/v1/evaluate/flags/current_version", ofrep)),
            (
                "stream",
                "GET /v1/projects/shop-app/remoteConfig:stream?key=\(key) HTTP/1.1\r\nHost: t\r\nOrigin: \(origin)\r\n"
                    + "Accept: text/event-stream\r\n\r\n"
            ),
        ]
    }

    /// The answer to `request` on a new connection, by the front (`viaRouter` false) or, after a first
    /// request that the fronts leave to NIO's parser, by the router.
    static func answer(_ port: Int, _ request: String, viaRouter: Bool) async throws -> RawConnection.Response {
        let connection = try RawConnection(port: port)
        defer { connection.close() }
        if viaRouter {
            connection.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            _ = try #require(try await connection.response())
        }
        connection.send(request)
        return try #require(try await connection.response())
    }

    @Test func answersToAnAllowedOriginCarryItOnTheFrontAndThroughTheRouter() async throws {
        try await Self.withApp { app, key in
            for viaRouter in [false, true] {
                for (name, request) in Self.clientRequests(origin: Self.allowed, key: key) {
                    let reply = try await Self.answer(app.port, request, viaRouter: viaRouter)
                    let way = viaRouter ? "router" : "front"
                    #expect(reply.status == 200, "\(name) (\(way))")
                    #expect(reply.headers["access-control-allow-origin"] == Self.allowed, "\(name) (\(way))")
                    #expect(reply.headers["access-control-expose-headers"] == "ETag", "\(name) (\(way))")
                }
                // An error answer carries the headers too, so the page's script can read the 401.
                let (_, bad) = Self.clientRequests(origin: Self.allowed, key: "rc_client_wrong")[0]
                let refused = try await Self.answer(app.port, bad, viaRouter: viaRouter)
                #expect(refused.status == 401)
                #expect(refused.headers["access-control-allow-origin"] == Self.allowed)
            }
        }
    }

    @Test func otherOriginsGetNoCORSHeadersEitherWay() async throws {
        try await Self.withApp { app, key in
            for viaRouter in [false, true] {
                for (name, request) in Self.clientRequests(origin: Self.unlisted, key: key) {
                    let reply = try await Self.answer(app.port, request, viaRouter: viaRouter)
                    #expect(reply.status == 200, "\(name)")
                    #expect(reply.headers["access-control-allow-origin"] == nil, "\(name) (router: \(viaRouter))")
                    #expect(reply.headers["access-control-expose-headers"] == nil, "\(name)")
                }
            }
        }
    }

    @Test func aPreflightFromAnAllowedOriginIs204OnClientRoutesOnly() async throws {
        try await Self.withApp { app, _ in
            let paths = [
                "/v1/projects/shop-app/remoteConfig:fetch", "/ofrep/v1/evaluate/flags",
                "/ofrep/v1/evaluate/flags/current_version", "/v1/projects/shop-app/remoteConfig:stream",
            ]
            func preflight(_ path: String, origin: String) async throws -> RawConnection.Response {
                try await Self.answer(
                    app.port,
                    "OPTIONS \(path) HTTP/1.1\r\nHost: t\r\nOrigin: \(origin)\r\n"
                        + "Access-Control-Request-Method: POST\r\n"
                        + "Access-Control-Request-Headers: content-type, x-api-key, if-none-match\r\n\r\n",
                    viaRouter: false)
            }
            for path in paths {
                let reply = try await preflight(path, origin: Self.allowed)
                #expect(reply.status == 204, "\(path)")
                #expect(reply.headers["access-control-allow-origin"] == Self.allowed, "\(path)")
                let methods = reply.headers["access-control-allow-methods"] ?? ""
                #expect(methods.contains("POST") && methods.contains("GET"), "\(path): \(methods)")
                let headers = (reply.headers["access-control-allow-headers"] ?? "").lowercased()
                for needed in ["content-type", "x-api-key", "authorization", "if-none-match", "last-event-id"] {
                    #expect(headers.contains(needed), "\(path) allows \(headers)")
                }
                #expect(Int(reply.headers["access-control-max-age"] ?? "") ?? 0 > 0, "\(path)")

                let other = try await preflight(path, origin: Self.unlisted)
                #expect(other.headers["access-control-allow-origin"] == nil, "\(path)")
                #expect(other.status == 405, "\(path)")
            }
            // Admin routes stay same-origin: no preflight answer and no headers on the answer itself.
            let admin = try await preflight("/v1/projects", origin: Self.allowed)
            #expect(admin.status == 405)
            #expect(admin.headers["access-control-allow-origin"] == nil)
            let list = try await Self.answer(
                app.port,
                "GET /v1/projects HTTP/1.1\r\nHost: t\r\nOrigin: \(Self.allowed)\r\n"
                    + "Authorization: Bearer \(TestApp.adminToken)\r\n\r\n",
                viaRouter: false)
            #expect(list.status == 200)
            #expect(list.headers["access-control-allow-origin"] == nil)
        }
    }

    @Test func withoutTheFlagNoOriginIsAllowed() async throws {
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: "client", project: "shop-app").secret
            for viaRouter in [false, true] {
                let (_, request) = Self.clientRequests(origin: Self.allowed, key: key)[0]
                let reply = try await Self.answer(app.port, request, viaRouter: viaRouter)
                #expect(reply.headers["access-control-allow-origin"] == nil)
            }
        }
    }

    @Test func theFlagTakesOriginsOrAStarAndRefusesAnythingElse() throws {
        let policy = try CORSPolicy(parsing: " https://Shop.Example.com/ ,http://127.0.0.1:8081")
        #expect(policy.origins == ["https://shop.example.com", "http://127.0.0.1:8081"])
        #expect(!policy.allowsAnyOrigin)
        #expect(try CORSPolicy(parsing: "*").allowsAnyOrigin)
        for bad in ["shop.example.com", "https://shop.example.com/app", "https://a b", "null"] {
            #expect(throws: ServerConfiguration.Invalid.self, "\(bad)") { try CORSPolicy(parsing: bad) }
        }
    }
}
