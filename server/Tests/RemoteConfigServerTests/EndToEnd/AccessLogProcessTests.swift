import Foundation
import RemoteConfigAPI
import RemoteConfigTestSupport
import Testing

/// The access log of a running server: one line per request, whichever way it came in (the fetch and stream
/// fronts, the router), with the request id the client got, never a query, and every line written by a
/// graceful stop right after the last answer.
@Suite struct AccessLogProcessTests {
    static let token = "rc_admin_accessLogTestToken000000000000"

    /// Starts a server with `shop-app`, a published template and a client key.
    static func shop(logLevel: String? = nil) async throws -> (ServerProcess, port: Int, key: String) {
        let url = ServeCommandTests.urlText(try await TestCluster.shared.makeDatabase())
        var environment = ["RC_ADMIN_TOKEN": token]
        if let logLevel { environment["RC_LOG_LEVEL"] = logLevel }
        let server = try ServerProcess(["serve", "--port", "0", "--database-url", url], environment: environment)
        let port = try await server.waitUntilListening()
        let base = "http://127.0.0.1:\(port)"
        let admin = ["Authorization": "Bearer \(token)"]
        _ = try await HTTP.request(
            "POST", base + "/v1/projects", headers: admin, body: HTTP.json(["projectId": "shop-app"]))
        _ = try await HTTP.request(
            "PUT", base + "/v1/projects/shop-app/remoteConfig", headers: admin.merging(["If-Match": "*"]) { $1 },
            body: HTTP.json(["parameters": ["a": ["defaultValue": ["value": "1"]]]]))
        let key = try await HTTP.request(
            "POST", base + "/v1/apiKeys", headers: admin, body: HTTP.json(["role": "client", "project": "shop-app"]))
        return (server, port, try #require(try key.decode(APIKey.self).key))
    }

    @Test func everyAnswerWithALineReachesItsClientThoughAStopBeginsMidStream() async throws {
        // A loop flushes its answers after each pass over its connections, and a stop closes each connection
        // as it sees it idle: an answer logged as given must still reach its client, in order, even when the
        // socket has not taken it yet (the clients here read one connection after another).
        let (server, port, key) = try await Self.shop()
        let connections = try (0..<8).map { _ in try RawConnection(port: port) }
        defer { for connection in connections { connection.close() } }
        let ids = (0..<connections.count).map { connection in
            (0..<300).map { String(format: "%016x", 0xfeed_0000 + connection * 1_000 + $0) }
        }
        for (connection, sent) in zip(connections, ids) {
            connection.send(sent.map { ClientCalls.fetchRequest(key: key, extra: "X-Request-Id: \($0)\r\n") }.joined())
        }
        server.signal(SIGTERM)
        var received: Set<String> = []
        for (connection, sent) in zip(connections, ids) {
            var answered: [String] = []
            while let response = try await connection.response(timeout: .seconds(10)) {
                answered.append(response.headers["x-request-id"] ?? "?")
            }
            #expect(answered == Array(sent.prefix(answered.count)), "answers out of order or not the ones sent")
            received.formUnion(answered)
        }
        #expect(try await server.waitForExit() == 0)
        let sent = Set(ids.joined())
        let logged = Set(
            server.output.split(separator: "\n").compactMap { line -> String? in
                guard line.contains(" duration_ms="), let match = line.firstMatch(of: #/hb\.request\.id=([0-9a-f]+) /#)
                else { return nil }
                return String(match.1)
            }
        ).intersection(sent)
        #expect(!logged.isEmpty)
        let lost = logged.subtracting(received)
        #expect(lost.isEmpty, "\(lost.count) answers logged, never received")
    }

    @Test func everyRequestAnsweredBeforeAStopHasExactlyOneLine() async throws {
        let (server, port, key) = try await Self.shop()
        let ofrep = #"{"context":{"targetingKey":"i-1"}}"#
        let ids = try await withThrowingTaskGroup(of: [String].self) { group in
            for connectionIndex in 0..<4 {
                group.addTask {
                    let connection = try RawConnection(port: port)
                    defer { connection.close() }
                    var ids: [String] = []
                    for index in 0..<50 {
                        let body = #"{"appInstanceId":"device-\#(connectionIndex)-\#(index)"}"#
                        let request =
                            switch index % 3 {
                            case 0: ClientCalls.fetchRequest(key: key, body: body)
                            case 1:
                                "POST /ofrep/v1/evaluate/flags HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(key)\r\n"
                                    + "Content-Length: \(ofrep.utf8.count)\r\n\r\n\(ofrep)"
                            default:
                                "POST \(ClientCalls.fetchPath)?key=\(key) HTTP/1.1\r\nHost: t\r\n"
                                    + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
                            }
                        connection.send(request)
                        let response = try #require(try await connection.response())
                        try #require(response.status == 200)
                        ids.append(try #require(response.headers["x-request-id"]))
                    }
                    return ids
                }
            }
            // The router's requests: a health check, an admin call and one the router refuses.
            group.addTask {
                var ids: [String] = []
                for path in ["/healthz", "/v1/projects", "/v1/nothing-here"] {
                    let reply = try await HTTP.request(
                        "GET", "http://127.0.0.1:\(port)\(path)", headers: ["Authorization": "Bearer \(Self.token)"])
                    ids.append(try #require(reply.headers["x-request-id"]))
                }
                // And one NIO's parser refuses.
                let connection = try RawConnection(port: port)
                defer { connection.close() }
                connection.send("NOT HTTP AT ALL\r\n\r\n")
                let refused = try #require(try await connection.response())
                try #require(refused.status == 400)
                ids.append(try #require(refused.headers["x-request-id"]))
                return ids
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        server.signal(SIGTERM)
        #expect(try await server.waitForExit() == 0)
        let lines = server.output.split(separator: "\n").filter { $0.contains(" duration_ms=") }
        let format =
            /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} info remote-config: duration_ms=\d+\.\d\d hb\.request\.id=([A-Za-z0-9._-]+) \[RemoteConfigServer\] (GET|POST|PUT|-) (\/\S*|-) (\d{3})$/
        var byID: [String: [Substring]] = [:]
        for line in lines {
            let match = try #require(line.wholeMatch(of: format), "not an access-log line: \(line)")
            byID[String(match.1), default: []].append(match.3)
        }
        #expect(ids.count == 204)
        for id in ids { #expect(byID[id]?.count == 1, "request \(id) has \(byID[id]?.count ?? 0) lines") }
        #expect(lines.contains { $0.hasSuffix(" POST /v1/projects/shop-app/remoteConfig:fetch 200") })
        #expect(lines.contains { $0.hasSuffix(" POST /ofrep/v1/evaluate/flags 200") })
        #expect(lines.contains { $0.hasSuffix(" GET /v1/nothing-here 404") })
        #expect(lines.contains { $0.hasSuffix(" - - 400") })
        #expect(!server.output.contains(key), "a key reached the log")
        #expect(!lines.contains { $0.contains("?") }, "a query reached the log")
    }

    @Test func warningTurnsTheAccessLogOff() async throws {
        let (server, port, key) = try await Self.shop(logLevel: "warning")
        let connection = try RawConnection(port: port)
        connection.send(ClientCalls.fetchRequest(key: key))
        #expect(try await connection.response()?.status == 200)
        connection.close()
        server.signal(SIGTERM)
        #expect(try await server.waitForExit() == 0)
        #expect(!server.output.contains("duration_ms"))
    }
}
