import Foundation
import RemoteConfigTestSupport
import Testing

/// Requests NIO's HTTP parser refuses still get the API's JSON error shape, and cost the connection only.
@Suite struct ProtocolErrorTests {
    /// The error object of a JSON error body.
    static func error(_ response: RawConnection.Response?) throws -> [String: Any] {
        let body = try #require(response?.body)
        let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        return try #require(json["error"] as? [String: Any])
    }

    @Test func aHeadOverTheLimitIs431InTheErrorShape() async throws {
        try await TestApp.live { app in
            let connection = try RawConnection(port: app.port)
            connection.send(
                "GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "a", count: 90_000))\r\n\r\n")
            let response = try await connection.response()
            #expect(response?.status == 431)
            #expect(response?.headers["content-type"] == "application/json; charset=utf-8")
            #expect(response?.headers["connection"] == "close")
            #expect(response?.headers["x-request-id"]?.count == 16)
            let error = try Self.error(response)
            #expect(error["code"] as? Int == 431)
            #expect(error["status"] as? String == "REQUEST_HEADERS_TOO_LARGE")
            let details = error["details"] as? [[String: String]]
            #expect(details == [["field": "headers", "reason": "HEADERS_TOO_LARGE"]])
            #expect(try await connection.waitForDisconnect(timeout: .seconds(5)))

            // Nothing else is affected: a new connection is served.
            let next = try RawConnection(port: app.port)
            next.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await next.response()?.status == 200)
        }
    }

    @Test func malformedHTTPIs400InTheErrorShape() async throws {
        try await TestApp.live { app in
            let connection = try RawConnection(port: app.port)
            connection.send("GET /healthz HTTP/1.1\r\nHost: t\r\nBad Header Name: x\r\n\r\n")
            let response = try await connection.response()
            #expect(response?.status == 400)
            let error = try Self.error(response)
            #expect(error["status"] as? String == "INVALID_ARGUMENT")
            #expect((error["details"] as? [[String: String]])?.first?["reason"] == "MALFORMED_HTTP")
            #expect(try await connection.waitForDisconnect(timeout: .seconds(5)))
        }
    }
}
