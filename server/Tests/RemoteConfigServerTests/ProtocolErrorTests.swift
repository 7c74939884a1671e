import Foundation
import RemoteConfigAPI
import RemoteConfigTestSupport
import Testing

/// Requests NIO's HTTP parser refuses still get the API's JSON error shape, and cost the connection only.
@Suite struct ProtocolErrorTests {
    /// The error object of a JSON error body.
    static func error(_ response: RawConnection.Response?) throws -> ErrorBody.Content {
        let body = try #require(response?.body)
        return try APIDecoder.decode(ErrorBody.self, from: body).error
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
            #expect(error.code == 431)
            #expect(error.status == "REQUEST_HEADERS_TOO_LARGE")
            #expect(error.details == [ErrorBody.Detail(field: "headers", reason: "HEADERS_TOO_LARGE")])
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
            #expect(error.status == "INVALID_ARGUMENT")
            #expect(error.details?.first?.reason == "MALFORMED_HTTP")
            #expect(try await connection.waitForDisconnect(timeout: .seconds(5)))
        }
    }
}
