import Foundation
import RemoteConfigAPI
import RemoteConfigTestSupport
import Testing

/// At its connection limit the server refuses further streams at once with 503 and `Retry-After`, and
/// keeps serving what it holds: publishes, notifications and fetches keep their speed.
@Suite struct StreamCapacityTests {
    static let token = "rc_admin_capacityTestToken000000000000000"
    static let admin = ["Authorization": "Bearer \(token)"]

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")))
    func streamsPastTheCapAreRefusedAtOnceAndTheRestKeepTheirSpeed() async throws {
        let url = ServeCommandTests.urlText(try await TestCluster.shared.makeDatabase())
        // Soft limit 128, hard 160: the server raises the soft limit to 160, keeps 64 descriptors for
        // itself, and caps streams at 90% of the 96 connections left: 86. One key opens them all here, so its
        // own share (90% of the cap by default, see StreamsPerKeyTests) is raised to the whole cap.
        let server = try ServerProcess(
            ["serve", "--port", "0", "--database-url", url],
            environment: ["RC_ADMIN_TOKEN": Self.token, "RC_LOG_LEVEL": "info", "RC_MAX_STREAMS_PER_KEY": "86"],
            openFiles: (128, 160))
        defer { server.signal(SIGKILL) }
        let port = try await server.waitUntilListening()
        #expect(
            server.output.contains(
                "open-files limit 160: room for about 96 connections, at most 86 streams (86 per client key)"))
        let base = "http://127.0.0.1:\(port)"
        _ = try await HTTP.request(
            "POST", base + "/v1/projects", headers: Self.admin,
            body: try HTTP.encoded(CreateProjectRequest(projectId: "cap-app")))
        let key = try #require(
            try await HTTP.request(
                "POST", base + "/v1/apiKeys", headers: Self.admin,
                body: try HTTP.encoded(CreateAPIKeyRequest(displayName: "app", role: "client", project: "cap-app"))
            ).decode(APIKey.self).key)

        var open: [SSEClient] = []
        var refused = 0
        var slowestRefusal = Duration.zero
        for _ in 0..<120 {
            let start = ContinuousClock.now
            let stream = try SSEClient(
                port: port, path: "/v1/projects/cap-app/remoteConfig:stream", headers: ["X-API-Key": key])
            let head: String
            do {
                head = try await stream.head(timeout: .seconds(15))
            } catch {
                Issue.record("stream \(open.count + refused + 1) got no answer; the server said:\n\(server.output)")
                throw error
            }
            if head.hasPrefix("HTTP/1.1 200") {
                open.append(stream)
            } else {
                #expect(head.hasPrefix("HTTP/1.1 503"), "\(head)")
                #expect(head.lowercased().contains("retry-after: 10"))
                slowestRefusal = max(slowestRefusal, ContinuousClock.now - start)
                refused += 1
                stream.close()
            }
        }
        #expect(open.count == 86)
        #expect(refused == 34)
        #expect(slowestRefusal < .seconds(1), "a refusal took \(slowestRefusal)")

        // What the server holds keeps its speed: publishes acknowledged and every stream told at once.
        var fastestPublish = Duration.seconds(60)
        for version in 1...3 {
            let start = ContinuousClock.now
            let publish = try await HTTP.request(
                "PUT", base + "/v1/projects/cap-app/remoteConfig",
                headers: Self.admin.merging(["If-Match": "*"]) { $1 },
                body: HTTP.json(["parameters": ["p": ["defaultValue": ["value": "\(version)"]]]]))
            #expect(publish.status == 200)
            fastestPublish = min(fastestPublish, ContinuousClock.now - start)
            for stream in open {
                #expect(
                    try await Self.isNotified(stream, of: version),
                    "a held stream was not told about version \(version) within 1 s")
            }
        }
        #expect(fastestPublish < .milliseconds(200), "the fastest of 3 publishes took \(fastestPublish)")
        let fetch = try await HTTP.request(
            "POST", base + "/v1/projects/cap-app/remoteConfig:fetch", headers: ["X-API-Key": key],
            body: HTTP.json(["appInstanceId": "probe"]))
        #expect(fetch.status == 200)
        let metrics = String(decoding: try await HTTP.request("GET", base + "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("rc_streams_refused_total 34"))

        // A stream that leaves makes room for one more.
        open.removeLast().close()
        try await Task.sleep(for: .milliseconds(300))
        let again = try SSEClient(
            port: port, path: "/v1/projects/cap-app/remoteConfig:stream", headers: ["X-API-Key": key])
        #expect(try await again.head().hasPrefix("HTTP/1.1 200"))
    }

    /// Connections past what the open-files limit allows are closed at once (not left in the kernel's backlog
    /// until their clients give up), counted in `/metrics`, and what the server holds keeps its speed.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")))
    func connectionsPastTheLimitFailFastAndTheRestKeepTheirSpeed() async throws {
        let url = ServeCommandTests.urlText(try await TestCluster.shared.makeDatabase())
        // 160 descriptors: room for 96 client connections.
        let server = try ServerProcess(
            ["serve", "--port", "0", "--database-url", url],
            environment: ["RC_ADMIN_TOKEN": Self.token, "RC_LOG_LEVEL": "info"], openFiles: (128, 160))
        defer { server.signal(SIGKILL) }
        let port = try await server.waitUntilListening()
        let base = "http://127.0.0.1:\(port)"
        _ = try await HTTP.request(
            "POST", base + "/v1/projects", headers: Self.admin,
            body: try HTTP.encoded(CreateProjectRequest(projectId: "cap-app")))
        let key = try #require(
            try await HTTP.request(
                "POST", base + "/v1/apiKeys", headers: Self.admin,
                body: try HTTP.encoded(CreateAPIKeyRequest(displayName: "app", role: "client", project: "cap-app"))
            ).decode(APIKey.self).key)

        // What an operator and an app already hold: keep-alive connections and a few streams.
        let admin = try RawConnection(port: port)
        defer { admin.close() }
        let app = try RawConnection(port: port)
        defer { app.close() }
        var streams: [SSEClient] = []
        for _ in 0..<10 {
            let stream = try SSEClient(
                port: port, path: "/v1/projects/cap-app/remoteConfig:stream", headers: ["X-API-Key": key])
            #expect(try await stream.head().hasPrefix("HTTP/1.1 200"))
            streams.append(stream)
        }

        // Far more connections than the server has room for, none of which sends anything.
        var idle: [RawConnection] = []
        defer {
            for connection in idle { connection.close() }
        }
        for _ in 0..<140 { idle.append(try RawConnection(port: port)) }
        try await Task.sleep(for: .seconds(1))
        var refused = 0
        for connection in idle where try await connection.waitForDisconnect(timeout: .milliseconds(20)) {
            refused += 1
        }
        // 96 fit, whatever else the test's own HTTP client keeps open: at least 140 + 12 - 96 are refused.
        #expect(refused >= 56, "only \(refused) of 140 connections past the limit were closed within 1 s")

        admin.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let metrics = String(decoding: try #require(try await admin.response()).body, as: UTF8.self)
        #expect(metrics.contains("rc_connections_refused_total \(refused)\n"), "\(metrics)")

        var fastestPublish = Duration.seconds(60)
        for version in 1...3 {
            let body = #"{"parameters": {"p": {"defaultValue": {"value": "\#(version)"}}}}"#
            let start = ContinuousClock.now
            admin.send(
                "PUT /v1/projects/cap-app/remoteConfig HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.token)\r\n"
                    + "If-Match: *\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                    + body)
            let publish = try #require(try await admin.response())
            fastestPublish = min(fastestPublish, ContinuousClock.now - start)
            #expect(publish.status == 200)
            for stream in streams {
                #expect(
                    try await Self.isNotified(stream, of: version),
                    "a held stream was not told about version \(version) within 1 s")
            }
        }
        #expect(fastestPublish < .milliseconds(200), "the fastest of 3 publishes took \(fastestPublish)")
        let fetchBody = #"{"appInstanceId": "probe"}"#
        app.send(
            "POST /v1/projects/cap-app/remoteConfig:fetch HTTP/1.1\r\nHost: x\r\nX-API-Key: \(key)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(fetchBody.utf8.count)\r\n\r\n" + fetchBody)
        #expect(try await app.response()?.status == 200)
    }

    /// Whether `stream` gets the event of `version`, with no gap of more than a second before it.
    static func isNotified(_ stream: SSEClient, of version: Int) async throws -> Bool {
        while let event = try await stream.next(timeout: .seconds(1)) {
            if event.id == "\(version)" { return true }
        }
        return false
    }

    @Test func aCapThatIsNotAPositiveNumberStopsStartUp() async throws {
        for bad in ["0", "-5", "many"] {
            let server = try ServerProcess(["serve", "--port", "0", "--max-streams=\(bad)"])
            let status = try await server.waitForExit(timeout: .seconds(30))
            #expect(status != 0)
            #expect(server.output.contains("--max-streams / RC_MAX_STREAMS"), "\(server.output)")
        }
        for (flag, setting) in [
            ("--max-streams-per-key=0", "--max-streams-per-key / RC_MAX_STREAMS_PER_KEY"),
            ("--cors-origins=shop.example.com", "--cors-origins / RC_CORS_ORIGINS"),
        ] {
            let server = try ServerProcess(["serve", "--port", "0", flag])
            let status = try await server.waitForExit(timeout: .seconds(30))
            #expect(status != 0)
            #expect(server.output.contains(setting), "\(server.output)")
        }
    }
}
