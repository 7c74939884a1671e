import Foundation
import RemoteConfigTestSupport
import Testing

/// Every client route takes its key by one rule (`ClientAuth.secret`), whichever way the request comes in:
/// the same credentials get the same answer from a fetch, both OFREP evaluations and a stream, on the
/// fronts (a connection's first request) and behind the router (a request after another on the connection).
@Suite struct ClientDoorTests {
    /// The raw request for each client route, with `headers` (ending in CRLF) and `query` on its path.
    static func requests(query: String, headers: String) -> [(route: String, text: String)] {
        let fetch = #"{"appInstanceId":"i-1","platform":"IOS","appVersion":"1.0.0"}"#
        let ofrep = #"{"context":{"targetingKey":"i-1"}}"#
        func post(_ path: String, _ body: String) -> String {
            "POST \(path)\(query) HTTP/1.1\r\nHost: t\r\n\(headers)Content-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }
        return [
            ("fetch", post(ClientCalls.fetchPath, fetch)),
            ("OFREP flags", post("/ofrep/v1/evaluate/flags", ofrep)),
            ("OFREP flag", post("/ofrep/v1/evaluate/flags/current_version", ofrep)),
            ("stream", "GET \(ClientCalls.streamPath)\(query) HTTP/1.1\r\nHost: t\r\n\(headers)\r\n"),
        ]
    }

    /// The status of `request`, sent first on a new connection (`routed`: after a health check, so the
    /// router answers it instead of the front).
    static func status(_ app: TestApp.Session, _ request: String, routed: Bool) async throws -> Int? {
        let connection = try RawConnection(port: app.port)
        defer { connection.close() }
        if routed {
            connection.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            guard try await connection.response()?.status == 200 else { return nil }
        }
        connection.send(request)
        return try await connection.response()?.status
    }

    @Test func anEmptyKeyHeaderCountsAsNoneOnEveryClientRoute() async throws {
        try await ClientCalls.withShop { app, key in
            for routed in [false, true] {
                for (route, request) in Self.requests(query: "?key=\(key)", headers: "X-API-Key: \r\n") {
                    let status = try await Self.status(app, request, routed: routed)
                    #expect(status == 200, "\(route), routed: \(routed): an empty X-API-Key and ?key=K")
                }
                for (route, request) in Self.requests(query: "", headers: "X-API-Key: \r\n") {
                    let status = try await Self.status(app, request, routed: routed)
                    #expect(status == 401, "\(route), routed: \(routed): an empty X-API-Key alone")
                }
                for (route, request) in Self.requests(query: "?key=", headers: "X-API-Key: \(key)\r\n") {
                    let status = try await Self.status(app, request, routed: routed)
                    #expect(status == 200, "\(route), routed: \(routed): X-API-Key with an empty ?key=")
                }
            }
        }
    }

    @Test func anIdTheProjectsRouteWouldRefuseIsNoProjectOnAnyRoute() async throws {
        try await ClientCalls.withShop { app, key in
            // `9shop` starts with a digit: no project can have it, so no route treats it as one.
            for path in ["/v1/projects/9shop/remoteConfig:fetch", "/v1/projects/9shop/remoteConfig:stream"] {
                let method = path.hasSuffix("fetch") ? "POST" : "GET"
                let body = path.hasSuffix("fetch") ? "{}" : ""
                let request =
                    "\(method) \(path) HTTP/1.1\r\nHost: t\r\nX-API-Key: \(key)\r\n"
                    + (body.isEmpty ? "" : "Content-Length: \(body.utf8.count)\r\n") + "\r\n\(body)"
                for routed in [false, true] {
                    let status = try await Self.status(app, request, routed: routed)
                    #expect(status == 404, "\(path), routed: \(routed)")
                }
            }
            let project = try await app.call(.get, "/v1/projects/9shop")
            #expect(project.status == 404)
            let insights = try await app.call(.get, "/v1/projects/9shop/insights/versions")
            #expect(insights.status == 404)
        }
    }
}
