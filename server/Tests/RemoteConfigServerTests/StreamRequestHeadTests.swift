import Testing

@testable import RemoteConfigServer

/// The stream front takes only the plain stream request SDKs send and leaves everything else to NIO's HTTP
/// parser and the router, which answer it as any other request.
@Suite struct StreamRequestHeadTests {
    static let plain =
        "GET /v1/projects/shop-app/remoteConfig:stream HTTP/1.1\r\nHost: t\r\nX-API-Key: rc_client_k\r\n"
        + "Accept: text/event-stream\r\nLast-Event-ID: 7\r\nX-Request-Id: r-1\r\n\r\n"

    static func parse(_ text: String) -> StreamRequestHead.Parse {
        StreamRequestHead.parse(Array(text.utf8))
    }

    @Test func aPlainStreamRequestIsReadWithTheFieldsItNeeds() {
        guard case .stream(let head) = Self.parse(Self.plain) else {
            Issue.record("a plain stream request was not read")
            return
        }
        #expect(head.project == "shop-app")
        #expect(head.apiKey == "rc_client_k")
        #expect(head.lastEventID == "7")
        #expect(head.requestID == "r-1")
        #expect(head.headLength == Self.plain.utf8.count)
    }

    @Test func theKeyMayComeAsTheOnlyQueryParameterAndTheHeaderWins() {
        let query = "GET /v1/projects/a-1/remoteConfig:stream?key=rc_client_q HTTP/1.1\r\nhOsT: t\r\n\r\n"
        guard case .stream(let head) = Self.parse(query) else {
            Issue.record("not read")
            return
        }
        #expect(head.apiKey == "rc_client_q")
        let both =
            "GET /v1/projects/a-1/remoteConfig:stream?key=rc_client_q HTTP/1.1\r\nHost: t\r\nx-api-key: h\r\n\r\n"
        guard case .stream(let second) = Self.parse(both) else {
            Issue.record("not read")
            return
        }
        #expect(second.apiKey == "h")
    }

    @Test func partialHeadsWaitForMore() {
        #expect(Self.parse("GET /v1/pro") == .needMore)
        #expect(Self.parse(String(Self.plain.dropLast(2))) == .needMore)
    }

    @Test func anythingElseGoesToTheRouter() {
        let others = [
            "HEAD /v1/projects/shop-app/remoteConfig:stream HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET /v1/projects/shop-app/remoteConfig:stream?key=k&x=1 HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET /v1/projects/shop-app/remoteConfig:stream?other=1 HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET /v1/projects/shop-app/remoteConfig:stream?key=%41 HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET /v1/projects/Shop/remoteConfig:stream HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET /v1/projects/shop-app/remoteConfig:stream HTTP/1.0\r\nHost: t\r\n\r\n",
            "GET /v1/projects/shop-app/remoteConfig:stream HTTP/1.1\r\n\r\n",
            "GET /v1/projects/shop-app/remoteConfig:stream HTTP/1.1\r\nHost: t\r\nHost: u\r\n\r\n",
            "GET /v1/projects/shop-app/remoteConfig:stream HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n",
            "GET /v1/projects/shop-app/remoteConfig:stream HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n",
            "GET /v1/projects/shop-app/remoteConfig:stream HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\n\r\n",
            "GET /v1/projects/shop-app/remoteConfig:stream HTTP/1.1\r\nHost: t\r\nConnection: upgrade\r\n\r\n",
            "GET /v1/projects/shop-app/remoteConfig:stream HTTP/1.1\nHost: t\r\n\r\n",
            "GET /v1/projects/shop-app/remoteConfig:stream HTTP/1.1\r\nHost: t\r\n X-API-Key: k\r\n\r\n",
            "GET /v1/projects/shop-app/remoteConfig:stream HTTP/1.1\r\nHost: t\r\nX-API-Key: k\u{1}\r\n\r\n",
        ]
        for text in others {
            #expect(Self.parse(text) == .notStream, "\(text.debugDescription)")
        }
    }
}
