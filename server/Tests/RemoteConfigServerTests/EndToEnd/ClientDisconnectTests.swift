import Foundation
import RemoteConfigTestSupport
import Testing

/// A client that goes away while it uploads a body is the client's doing: the server neither logs an error
/// nor counts a 500.
@Suite struct ClientDisconnectTests {
    @Test func aClientThatHangsUpMidBodyIsNoServerError() async throws {
        let url = ServeCommandTests.urlText(try await TestCluster.shared.makeDatabase())
        let token = "rc_admin_disconnectTestToken0000000000"
        let server = try ServerProcess(
            ["serve", "--port", "0", "--database-url", url], environment: ["RC_ADMIN_TOKEN": token])
        let port = try await server.waitUntilListening()
        let base = "http://127.0.0.1:\(port)"
        let admin = ["Authorization": "Bearer \(token)"]
        let created = try await HTTP.request(
            "POST", base + "/v1/projects", headers: admin, body: HTTP.json(["projectId": "shop-app"]))
        #expect(created.status == 201)
        let routes = [
            "PUT /v1/projects/shop-app/remoteConfig", "PUT /v1/projects/shop-app/remoteConfig/draft",
            "POST /v1/projects", "POST /v1/projects/shop-app/remoteConfig:fetch",
        ]
        for route in routes {
            let connection = try RawConnection(port: port)
            connection.send(
                "\(route) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\nIf-Match: *\r\n"
                    + "X-API-Key: rc_client_none\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n"
                    + #"{"parameters": {"#)
            try await Task.sleep(for: .milliseconds(200))
            connection.close()
        }
        try await Task.sleep(for: .milliseconds(500))
        let metrics = try await HTTP.request("GET", base + "/metrics")
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(!text.contains(#"status="500""#), "a hang-up was counted as a 500")
        server.signal(SIGTERM)
        #expect(try await server.waitForExit() == 0)
        let errors = server.output.split(separator: "\n").filter { $0.contains(" error ") || $0.contains("critical") }
        #expect(errors.isEmpty, "a hang-up was logged as an error: \(errors)")
    }
}
