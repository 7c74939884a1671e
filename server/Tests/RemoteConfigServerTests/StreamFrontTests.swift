import Foundation
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// A plain stream request is served on its connection's event loop; one the front leaves to the router is
/// served there; clients cannot tell them apart.
@Suite struct StreamFrontTests {
    static let path = "/v1/projects/shop-app/remoteConfig:stream"

    @Test func bothPathsAnswerAlikeAndHearTheSameEvents() async throws {
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await ClientCalls.publish(app, "1.0.0")

            let plain = try SSEClient(port: app.port, path: Self.path, headers: ["X-API-Key": key.secret])
            let plainHead = try await plain.head().lowercased()
            #expect(app.streams.count == 1)
            #expect(app.streams.servedOnLoops == 1, "a plain stream request is served on the event loop")
            // A request body marker is something the front leaves to the router, which serves it all the same.
            let routed = try SSEClient(
                port: app.port, path: Self.path, headers: ["X-API-Key": key.secret, "Content-Length": "0"])
            let routedHead = try await routed.head().lowercased()
            #expect(app.streams.count == 2)
            #expect(app.streams.servedOnLoops == 1, "the other one is the router's")

            for head in [plainHead, routedHead] {
                #expect(head.hasPrefix("http/1.1 200 ok"), "\(head)")
                for field in [
                    "content-type: text/event-stream; charset=utf-8", "cache-control: no-cache",
                    "x-accel-buffering: no", "transfer-encoding: chunked", "x-request-id: ", "server: remote-config",
                ] {
                    #expect(head.contains(field), "\(field) is missing from \(head)")
                }
            }
            try await Self.expectVersionOneThenTwo([plain, routed], app)

            // Revoking the key ends both; the slots are given back.
            try await app.call(.delete, "/v1/apiKeys/\(key.id)")
            for stream in [plain, routed] {
                #expect(try await stream.waitForClose(timeout: .seconds(2)), "revoking the key closes its stream")
            }
            let deadline = ContinuousClock.now + .seconds(2)
            while app.streams.count > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(app.streams.count == 0)
        }
    }

    @Test func aStreamRequestWithLastEventIDAndARequestIDIsServedOnTheLoop() async throws {
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await ClientCalls.publish(app, "1.0.0")
            let stream = try SSEClient(
                port: app.port, path: Self.path + "?key=\(key.secret)",
                headers: ["Last-Event-ID": " 1 ", "X-Request-Id": "proxy-7"])
            let head = try await stream.head().lowercased()
            #expect(head.contains("x-request-id: proxy-7"))
            #expect(app.streams.servedOnLoops == 1)
            #expect(try await stream.next()?.retry == "2000")
            #expect(try await stream.next(timeout: .milliseconds(300)) == nil, "version 1 is known already")
            try await ClientCalls.publish(app, "1.0.1")
            #expect(try await stream.next()?.id == "2")
        }
    }

    /// A request the front used to hand to the router, one with a key this server has not read yet (created
    /// on another replica, say), is served on the loop once the key is looked up; a stream request after
    /// another request on the same connection still goes to the router, onto the same endpoint. A client
    /// cannot tell either from a plain one: the same head, opening and events, the same access-log line.
    @Test func aKeyLookedUpFirstAndTheRouterAnswerExactlyLikeThePlainRequest() async throws {
        let captured = AccessLogTests.Captured()
        let accessLog = AccessLog(label: "remote-config", level: .info, output: captured.output)
        // No periodic reread of the keys: this server learns the forgotten key only by looking it up.
        let noReread: (inout ServerConfiguration) -> Void = { $0.cacheCheckInterval = .seconds(3600) }
        try await TestApp.live(accessLog: accessLog, configure: noReread) { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await ClientCalls.publish(app, "1.0.0")
            let headers = ["X-API-Key": key.secret]

            // The server forgets every key, as one that has not read this key yet.
            app.clientKeys.apply([])
            let refreshes = app.clientKeys.refreshCount
            let lookedUp = try SSEClient(port: app.port, path: Self.path, headers: headers)
            let lookedUpHead = try await lookedUp.head()
            #expect(app.clientKeys.refreshCount == refreshes + 1, "the key was looked up")
            #expect(app.streams.servedOnLoops == 1, "and the stream served on the loop")

            let plain = try SSEClient(port: app.port, path: Self.path, headers: headers)
            let plainHead = try await plain.head()
            #expect(app.streams.servedOnLoops == 2)

            let routed = try SSEClient(
                port: app.port, path: Self.path, headers: headers, first: "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            _ = try await routed.head()
            // What follows the health check's head: its body, then the stream's head.
            let afterHealth = try await routed.head()
            let routedHead = String(afterHealth[try #require(afterHealth.range(of: "HTTP/1.1 ")).lowerBound...])
            #expect(app.streams.count == 3)
            #expect(app.streams.servedOnLoops == 2, "after another request, the router serves the stream")

            let heads = [lookedUpHead, plainHead, routedHead]
            #expect(Self.fields(plainHead).contains("content-type: text/event-stream; charset=utf-8"))
            #expect(Self.fields(plainHead).contains("date"), "a Date header, as every answer of the router has")
            for head in heads { #expect(Self.fields(head) == Self.fields(plainHead), "\(head)\n\(plainHead)") }
            try await Self.expectVersionOneThenTwo([lookedUp, plain, routed], app)

            // One line each, with the id its client got, the same but for the id and the duration.
            accessLog.flush()
            let lines = captured.lines.filter { $0.contains("remoteConfig:stream") }
            #expect(lines.count == 3, "\(lines)")
            let ids = heads.map { head in
                Self.fields(head, keepingRequestID: true).first { $0.hasPrefix("x-request-id: ") }?.dropFirst(14)
            }
            for id in ids {
                let line = lines.first { $0.contains(" hb.request.id=\(id ?? "none") ") }
                #expect(
                    line?.hasSuffix("[RemoteConfigServer] GET /v1/projects/shop-app/remoteConfig:stream 200") == true)
            }
            let shapes = Set(
                lines.map { line in
                    // Without the time, the duration's and the id's values.
                    line.split(separator: " ").dropFirst().map { word in
                        word.hasPrefix("duration_ms=") || word.hasPrefix("hb.request.id=")
                            ? String(word.prefix { $0 != "=" }) : String(word)
                    }.joined(separator: " ")
                })
            #expect(shapes.count == 1, "\(shapes)")
        }
    }

    /// A response head's lines, lowercased and sorted; the values of the date and (unless asked for) the
    /// request id left out.
    /// Each stream opens with the retry hint and version 1, then gets version 2 once it is published.
    static func expectVersionOneThenTwo(_ streams: [SSEClient], _ app: TestApp.Session) async throws {
        for stream in streams {
            #expect(try await stream.next()?.retry == "2000")
            let current = try await stream.next()
            #expect(current?.event == "version")
            #expect(current?.id == "1")
            #expect(current?.data == #"{"latestTemplateVersionNumber": "1"}"#)
        }
        try await ClientCalls.publish(app, "1.0.1")
        for stream in streams { #expect(try await stream.next()?.id == "2") }
    }

    static func fields(_ head: String, keepingRequestID: Bool = false) -> [String] {
        head.lowercased().components(separatedBy: "\r\n").map { line in
            if line.hasPrefix("date: ") { return "date" }
            return !keepingRequestID && line.hasPrefix("x-request-id: ") ? "x-request-id" : line
        }.sorted()
    }
}
