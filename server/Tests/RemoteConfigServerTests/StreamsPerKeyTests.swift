import Foundation
import RemoteConfigAPI
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// One client key cannot take every stream slot of a server (`--max-streams-per-key`): past its share a
/// stream request is 503 with `Retry-After`, another project's apps still stream, and the global cap holds.
@Suite struct StreamsPerKeyTests {
    static func open(_ app: TestApp.Session, _ project: String, key: String) async throws -> (SSEClient, String) {
        let stream = try SSEClient(
            port: app.port, path: "/v1/projects/\(project)/remoteConfig:stream", headers: ["X-API-Key": key])
        return (stream, try await stream.head())
    }

    @Test func oneProjectsKeyFillsItsShareAndAnotherProjectStillStreams() async throws {
        let caps: (inout ServerConfiguration) -> Void = {
            $0.maxStreams = 9
            $0.maxStreamsPerKey = 4
        }
        try await TestApp.live(configure: caps) { app in
            try await app.createProject("greedy-app")
            try await app.createProject("shop-app")
            let greedy = try await app.createKey(role: "client", project: "greedy-app").secret
            let shop = try await app.createKey(role: "client", project: "shop-app").secret
            var held: [SSEClient] = []
            for _ in 0..<4 {
                let (stream, head) = try await Self.open(app, "greedy-app", key: greedy)
                #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
                held.append(stream)
            }
            // The key's share is full: refused at once, saying why, with Retry-After.
            let refused = try RawConnection(port: app.port)
            refused.send(
                "GET /v1/projects/greedy-app/remoteConfig:stream HTTP/1.1\r\nHost: t\r\nX-API-Key: \(greedy)\r\n\r\n")
            let answer = try #require(try await refused.response())
            #expect(answer.status == 503)
            #expect(answer.headers["retry-after"] == "10")
            let body = try APIDecoder.decode(ErrorBody.self, from: answer.body).error
            #expect(body.status == "UNAVAILABLE")
            #expect(body.message.contains("client key"))

            // Another project's key streams, and hears its publishes.
            let (shopStream, shopHead) = try await Self.open(app, "shop-app", key: shop)
            #expect(shopHead.hasPrefix("HTTP/1.1 200"), "\(shopHead)")
            #expect(try await shopStream.next()?.retry == "2000")
            try await ClientCalls.publish(app, "1.0.0")
            var seen: SSEClient.Event?
            repeat { seen = try await shopStream.next(timeout: .seconds(5)) } while seen != nil && seen?.id != "1"
            #expect(seen?.id == "1")
            held.append(shopStream)

            // A slot given back is the key's again.
            held.removeFirst().close()
            let deadline = ContinuousClock.now + .seconds(2)
            while app.streams.count != 4, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            let (again, againHead) = try await Self.open(app, "greedy-app", key: greedy)
            #expect(againHead.hasPrefix("HTTP/1.1 200"), "a slot given back can be taken again: \(againHead)")
            held.append(again)

            // The global cap is still in force: a second key of the same project takes the last 4 slots, and
            // then even the shop's key, under its own share, is refused.
            let second = try await app.createKey(role: "client", project: "greedy-app").secret
            for _ in 0..<4 {
                let (stream, head) = try await Self.open(app, "greedy-app", key: second)
                #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
                held.append(stream)
            }
            #expect(app.streams.count == 9)
            let full = try RawConnection(port: app.port)
            full.send("GET /v1/projects/shop-app/remoteConfig:stream HTTP/1.1\r\nHost: t\r\nX-API-Key: \(shop)\r\n\r\n")
            let fullAnswer = try #require(try await full.response())
            #expect(fullAnswer.status == 503)
            #expect(fullAnswer.headers["retry-after"] == "10")
            #expect(String(decoding: fullAnswer.body, as: UTF8.self).contains("maximum of 9 streams"))
            #expect(app.streams.count == 9)
        }
    }

    @Test func theShareIsNinetyPercentOfTheCapByDefault() {
        #expect(StreamHub.defaultMaxStreamsPerKey(maxStreams: 86) == 78)
        #expect(StreamHub.defaultMaxStreamsPerKey(maxStreams: 10) == 9)
        #expect(StreamHub.defaultMaxStreamsPerKey(maxStreams: 1) == 1)
        #expect(StreamHub(maxStreams: 1000).maxStreamsPerKey == 900)
    }
}
