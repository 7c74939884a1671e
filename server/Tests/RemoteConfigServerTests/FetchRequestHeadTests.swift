import NIOCore
import Testing

@testable import RemoteConfigServer

/// The fetch front takes only plain fetches and leaves everything else, above all whatever request
/// smuggling feeds on, to NIO's full HTTP parser.
@Suite struct FetchRequestHeadTests {
    static let plain =
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nX-API-Key: rc_client_k\r\n"
        + "Content-Type: application/json\r\nIf-None-Match: \"abc\"\r\nX-Request-Id: r-1\r\nContent-Length: 25\r\n\r\n"

    static func parse(_ text: String) -> FetchRequestHead.Parse {
        FetchRequestHead.parse(Array(text.utf8))
    }

    @Test func aPlainFetchIsReadWithTheFieldsItNeeds() throws {
        guard case .fetch(let head) = Self.parse(Self.plain + #"{"appInstanceId":"i-1"}"#) else {
            Issue.record("a plain fetch was not read")
            return
        }
        #expect(head.project == "shop-app")
        #expect(head.query == nil)
        #expect(head.apiKey == "rc_client_k")
        #expect(head.ifNoneMatch == "\"abc\"")
        #expect(head.requestID == "r-1")
        #expect(head.contentLength == 25)
        #expect(head.close == false)
        #expect(head.headLength == Self.plain.utf8.count)
    }

    @Test func namesAreCaseInsensitiveAndQueriesAndCloseAreKept() {
        let text =
            "POST /v1/projects/a-1/remoteConfig:fetch?key=rc_client_k HTTP/1.1\r\nhOsT: t\r\n"
            + "CONNECTION: Keep-Alive, close\r\ncontent-length:0\r\n\r\n"
        guard case .fetch(let head) = Self.parse(text) else {
            Issue.record("not read")
            return
        }
        #expect(head.query == "key=rc_client_k")
        #expect(head.close)
        #expect(head.contentLength == 0)
    }

    @Test func partialHeadsWaitForMore() {
        for cut in [1, 10, 30, Self.plain.utf8.count - 1] {
            #expect(FetchRequestHead.parse(Array(Self.plain.utf8.prefix(cut))) == .needMore, "cut at \(cut)")
        }
    }

    @Test(arguments: [
        "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n",
        "PUT /v1/projects/shop-app/remoteConfig HTTP/1.1\r\nHost: t\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.0\r\nHost: t\r\n\r\n",
        "POST /v1/projects/Shop/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetchX HTTP/1.1\r\nHost: t\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch/ HTTP/1.1\r\nHost: t\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch  HTTP/1.1\r\nHost: t\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nContent-Length: 5, 5\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nContent-Length: +5\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nX-API-Key: a\r\nX-API-Key: b\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nX-Long: a\r\n b\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\nHost: t\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\rX: y\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nX-Bad: a\u{01}b\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nBad Name: a\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\n: a\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nContent-Encoding: gzip\r\n\r\n",
        "POST /v1/projects/shop-app/remoteConfig:fetch?a b HTTP/1.1\r\nHost: t\r\n\r\n",
    ])
    func anythingButAPlainFetchGoesToTheFullParser(_ text: String) {
        #expect(Self.parse(text) == .notFetch)
    }

    /// The front reads a connection's buffer where it lies, past the requests already answered on it: the same
    /// head as from a copy, however the bytes sit in the buffer, and nothing read past the head's end.
    @Test func aConnectionsBufferIsReadInPlaceFromItsReaderIndex() throws {
        let body = #"{"appInstanceId":"i-1"}"#
        let fromCopy = Self.parse(Self.plain + body)
        var buffer = ByteBuffer(string: "earlier request bytes already answered")
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        buffer.writeString(Self.plain + body)
        #expect(FetchRequestHead.parse(buffer.readableBytesView) == fromCopy)
        guard case .fetch(let head) = fromCopy else {
            Issue.record("a plain fetch was not read")
            return
        }
        #expect(head.headLength == Self.plain.utf8.count)
        // Cut anywhere in the head: more is needed, whatever follows in the buffer's storage.
        for cut in [1, 40, Self.plain.utf8.count - 1] {
            var partial = buffer
            partial.moveWriterIndex(to: partial.readerIndex + cut)
            #expect(FetchRequestHead.parse(partial.readableBytesView) == .needMore, "cut at \(cut)")
        }
    }

    @Test func aHeadThatNeverEndsIsNotAFetch() {
        let long = "POST /v1/projects/shop-app/remoteConfig:fetch HTTP/1.1\r\nX: " + String(repeating: "a", count: 9000)
        #expect(Self.parse(long) == .notFetch)
    }
}
