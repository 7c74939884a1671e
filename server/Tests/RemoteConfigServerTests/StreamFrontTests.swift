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
            for stream in [plain, routed] {
                #expect(try await stream.next()?.retry == "2000")
                let current = try await stream.next()
                #expect(current?.event == "version")
                #expect(current?.id == "1")
                #expect(current?.data == #"{"latestTemplateVersionNumber": "1"}"#)
            }
            try await ClientCalls.publish(app, "1.0.1")
            for stream in [plain, routed] { #expect(try await stream.next()?.id == "2") }

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
}
