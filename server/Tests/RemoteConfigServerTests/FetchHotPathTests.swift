import Foundation
import HTTPTypes
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// The fetch hot path on a real socket: answered on the event loop like through the router, connections
/// that send nothing closed, unknown keys cheap, regular expressions in linear time.
@Suite struct FetchHotPathTests {
    @Test func pipelinedFetchesAnswerInOrderWithRequestIDsAndMetrics() async throws {
        try await ClientCalls.withShop { app, key in
            let connection = try RawConnection(port: app.port)
            connection.send(
                ClientCalls.fetchRequest(key: key) + "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
                    + ClientCalls.fetchRequest(key: key, extra: "X-Request-Id: 0123456789abcdef\r\n")
                    + ClientCalls.fetchRequest(key: "rc_client_unknown"))
            let first = try #require(try await connection.response())
            let health = try #require(try await connection.response())
            let second = try #require(try await connection.response())
            let refused = try #require(try await connection.response())
            #expect(first.status == 200)
            #expect(health.status == 200)
            #expect(second.status == 200)
            #expect(refused.status == 401)
            #expect(first.body == second.body)
            #expect(first.headers["etag"] != nil && first.headers["etag"] == second.headers["etag"])
            #expect(first.headers["x-request-id"]?.count == 16)
            #expect(second.headers["x-request-id"] == "0123456789abcdef")
            #expect(first.headers["x-request-id"] != health.headers["x-request-id"])
            let answer = try JSONValue(parsing: [UInt8](first.body))
            #expect(answer["state"] == "UPDATE")

            let etag = try #require(first.headers["etag"])
            connection.send(ClientCalls.fetchRequest(key: key, extra: "If-None-Match: \(etag)\r\n"))
            let notModified = try #require(try await connection.response())
            #expect(notModified.status == 304)
            #expect(notModified.headers["etag"] == etag)
            #expect(notModified.body.isEmpty)

            let metrics = try await app.call(.get, "/metrics", token: nil).text
            let fetchLines = metrics.split(separator: "\n").filter {
                $0.hasPrefix("rc_http_requests_total") && $0.contains(#"route="/v1/projects/{p}/remoteConfig:fetch""#)
            }
            #expect(fetchLines.contains { $0.contains(#"status="200""#) && $0.hasSuffix(" 2") })
            #expect(fetchLines.contains { $0.contains(#"status="304""#) && $0.hasSuffix(" 1") })
            #expect(fetchLines.contains { $0.contains(#"status="401""#) && $0.hasSuffix(" 1") })
            #expect(metrics.contains("rc_fetch_not_modified_total 1"))
        }
    }

    @Test func fetchesPipelinedPastTheWriteBufferAreAllAnsweredInOrder() async throws {
        // Answers are flushed once the loop has read its ready connections, not one by one: far more answers
        // than the channel buffers before it stops taking writes (64 KiB) must still all go out, in order.
        try await ClientCalls.withShop { app, key in
            let connection = try RawConnection(port: app.port)
            let count = 1500
            let ids = (0..<count).map { String(format: "%016x", 0xabc0_0000 + $0) }
            connection.send(
                ids.map { ClientCalls.fetchRequest(key: key, extra: "X-Request-Id: \($0)\r\n") }.joined())
            var bytes = 0
            for id in ids {
                let answer = try #require(try await connection.response(timeout: .seconds(20)))
                #expect(answer.status == 200)
                #expect(answer.headers["x-request-id"] == id)
                bytes += answer.body.count
            }
            #expect(bytes > 65_536, "the answers did not outgrow the write buffer")
        }
    }

    @Test func aClientThatNeverReadsItsAnswersIsClosedSoonAfterItsIdleTimeout() async throws {
        // A close waits for the answers written before it, but not for a client that never reads them: its
        // idle timeout closes the connection within `FetchFront.closeGrace` more, or it would hold it for ever.
        let shortIdleTimeout: (inout ServerConfiguration) -> Void = { $0.idleTimeout = .seconds(1) }
        try await ClientCalls.withShop(configure: shortIdleTimeout) { app, key in
            let connection = try RawConnection(port: app.port, receiveBuffer: 4_096)
            defer { connection.close() }
            // Far more answers than the socket buffers hold; sent from a task, since sending stalls once the
            // server stops reading.
            let request = ClientCalls.fetchRequest(key: key)
            let sender = Task.detached { connection.send(String(repeating: request, count: 20_000)) }
            let start = ContinuousClock.now
            while connection.isEstablished, ContinuousClock.now - start < .seconds(30) {
                try await Task.sleep(for: .milliseconds(100))
            }
            let elapsed = ContinuousClock.now - start
            #expect(!connection.isEstablished, "still open after \(elapsed)")
            #expect(elapsed < .seconds(15), "closed only after \(elapsed)")
            _ = await sender.value
        }
    }

    @Test func anIncompleteRequestHeadIsClosedAfterTheHeaderTimeout() async throws {
        // Two seconds, not less: the test client's own keep-alive connection is held to it between the set-up
        // calls too, and a loaded machine can leave more than half a second between them.
        let shortHeaderTimeout: (inout ServerConfiguration) -> Void = { $0.headerTimeout = .seconds(2) }
        try await ClientCalls.withShop(configure: shortHeaderTimeout) { app, key in
            let silent = try RawConnection(port: app.port)
            let halfHead = try RawConnection(port: app.port)
            halfHead.send("POST \(ClientCalls.fetchPath) HTTP/1.1\r\nHost: t\r\n")
            let start = ContinuousClock.now
            #expect(try await halfHead.waitForDisconnect(timeout: .seconds(10)))
            #expect(try await silent.waitForDisconnect(timeout: .seconds(5)))
            #expect(ContinuousClock.now - start >= .milliseconds(1500), "closed before the header timeout")
            // A client that sends its request in time is served, however slowly its body arrives after.
            let slow = try RawConnection(port: app.port)
            let request = ClientCalls.fetchRequest(key: key)
            let split = request.range(of: "\r\n\r\n")!.upperBound
            slow.send(String(request[..<split]))
            try await Task.sleep(for: .milliseconds(2500))
            slow.send(String(request[split...]))
            #expect(try await slow.response()?.status == 200)
        }
    }

    @Test func anIdleKeepAliveConnectionIsClosedButABusyOneAndAStreamAreNot() async throws {
        let shortIdleTimeout: (inout ServerConfiguration) -> Void = { $0.idleTimeout = .milliseconds(1500) }
        try await ClientCalls.withShop(configure: shortIdleTimeout) { app, key in
            // Requests 300 ms apart for longer than the idle timeout: the connection stays open.
            let busy = try RawConnection(port: app.port)
            for _ in 0..<8 {
                busy.send(ClientCalls.fetchRequest(key: key))
                #expect(try await busy.response()?.status == 200)
                try await Task.sleep(for: .milliseconds(300))
            }
            let stream = try SSEClient(
                port: app.port, path: "/v1/projects/shop-app/remoteConfig:stream", headers: ["X-API-Key": key])
            _ = try await stream.head()
            let idle = try RawConnection(port: app.port)
            idle.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await idle.response()?.status == 200)
            #expect(try await idle.waitForDisconnect(timeout: .seconds(5)))
            #expect(try await stream.waitForDisconnect(timeout: .seconds(2)) == false, "an open stream was closed")
        }
    }

    @Test func aFloodOfUnknownKeysReadsTheKeysAFewTimesNotPerRequest() async throws {
        try await ClientCalls.withShop { app, _ in
            let before = app.clientKeys.refreshCount
            let start = ContinuousClock.now
            // 400 different unknown keys from 50 connections at once.
            let refused = try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<50 {
                    group.addTask {
                        let connection = try RawConnection(port: app.port)
                        var refused = 0
                        for index in 0..<8 {
                            connection.send(ClientCalls.fetchRequest(key: "rc_client_random\(worker)x\(index)"))
                            if try await connection.response()?.status == 401 { refused += 1 }
                        }
                        return refused
                    }
                }
                var refused = 0
                for try await count in group { refused += count }
                return refused
            }
            #expect(refused == 400)
            let elapsed = ContinuousClock.now - start
            let refreshes = app.clientKeys.refreshCount - before
            // At most one read of the key set per 250 ms, whatever the number of bad keys.
            let allowed = Int(elapsed / .milliseconds(250)) + 2
            #expect(refreshes <= allowed, "\(refreshes) reads of the keys for 400 unknown keys in \(elapsed)")
            #expect(refreshes < 100, "\(refreshes) reads of the keys for 400 unknown keys")
            // A bad key seen a moment ago is answered from memory.
            let connection = try RawConnection(port: app.port)
            connection.send(ClientCalls.fetchRequest(key: "rc_client_again"))
            #expect(try await connection.response()?.status == 401)
            let settled = app.clientKeys.refreshCount
            let repeatStart = ContinuousClock.now
            for _ in 0..<50 {
                connection.send(ClientCalls.fetchRequest(key: "rc_client_again"))
                #expect(try await connection.response()?.status == 401)
            }
            // It is remembered as unknown for 2 s: on a loaded machine the 50 may take longer than that.
            let rereads = app.clientKeys.refreshCount - settled
            #expect(
                rereads <= Int((ContinuousClock.now - repeatStart) / .seconds(2)), "\(rereads) reads for one bad key")
            // And a key created now works at once.
            let fresh = try await app.createKey(role: "client", project: "shop-app")
            connection.send(ClientCalls.fetchRequest(key: fresh.secret))
            #expect(try await connection.response()?.status == 200)
        }
    }

    /// Patterns that take exponential time in a backtracking engine.
    static let catastrophic = [
        "(a+)+$", "(a|aa)*b", "^([a-zA-Z0-9_.-])+@(([a-zA-Z0-9-])+.)+([a-zA-Z0-9]{2,4})+$",
    ]

    @Test func catastrophicPatternsMatchInLinearTime() async throws {
        try await ClientCalls.withShop { app, _ in
            let conditions = Self.catastrophic.enumerated().map { index, pattern -> JSONValue in
                [
                    "name": "evil_\(index)",
                    "expression": "app.customSignal['x'].matches(['\(pattern)'])",
                ]
            }
            let template: JSONValue = [
                "conditions": .array(conditions),
                "parameters": [
                    "banner": [
                        "defaultValue": ["value": "none"],
                        "conditionalValues": .object(
                            JSONObject((0..<3).map { .init(key: "evil_\($0)", value: ["value": "evil \($0)"]) })),
                    ]
                ],
            ]
            #expect(try await app.publish("shop-app", template).status == 200)
            let key = try await app.createKey(role: "client", project: "shop-app")
            // 500 characters each: one that no pattern matches (the worst case for a backtracking engine) and
            // one that the first pattern matches.
            let cases = [
                (String(repeating: "a", count: 499) + "!", "none"), (String(repeating: "a", count: 500), "evil 0"),
            ]
            let connection = try RawConnection(port: app.port)
            var fastest = Duration.seconds(60)
            for (value, expected) in cases {
                let body = #"{"appInstanceId":"i-1","customSignals":{"x":"\#(value)"}}"#
                for _ in 0..<3 {
                    let start = ContinuousClock.now
                    connection.send(ClientCalls.fetchRequest(key: key.secret, body: body))
                    let reply = try #require(try await connection.response(timeout: .seconds(30)))
                    fastest = min(fastest, ContinuousClock.now - start)
                    #expect(reply.status == 200)
                    let answer = try JSONValue(parsing: [UInt8](reply.body))
                    #expect(answer["entries"]?["banner"] == .string(expected))
                }
            }
            #expect(fastest < .milliseconds(100), "a 500-character match took \(fastest)")
        }
    }

    @Test(arguments: ["(a)\\1", "(?=a)b", "a(?!b)", "(?<=a)b"])
    func patternsThatNeedBacktrackingAreRefusedAtPublish(pattern: String) async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let template: JSONValue = [
                "conditions": [["name": "needs_backtracking", "expression": "app.version.matches(['\(pattern)'])"]],
                "parameters": [
                    "p": ["defaultValue": ["value": "x"], "conditionalValues": ["needs_backtracking": ["value": "y"]]]
                ],
            ]
            let reply = try await app.publish("shop-app", template)
            #expect(reply.status == 400)
            #expect(reply.errorReasons.contains("INVALID_EXPRESSION"))
            #expect(reply.errorFields.contains("conditions[0].expression"))
            #expect(reply.text.contains("needs_backtracking"))
            let versions = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions")
            #expect(versions.value["versions"]?.arrayValue?.isEmpty ?? true)
        }
    }
}
