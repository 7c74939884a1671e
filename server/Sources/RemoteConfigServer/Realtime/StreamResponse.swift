import HTTPTypes
import NIOCore

/// What a stream's answer is made of, for both ways a stream is served (`StreamFront` on the event loop,
/// `StreamController` behind the router): its headers, the reconnection delay, the opening and the
/// keep-alive, defined once so the two cannot drift apart.
enum StreamResponse {
    /// The reconnection delay advised to clients (`retry:`).
    static let retryMilliseconds = 2000

    /// The headers of a stream's 200 (without the request id, CORS and framing, which each way adds).
    static let headers: HTTPFields = [
        .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache",
        .init("X-Accel-Buffering")!: "no",
    ]

    /// `headers` as they go on the wire, each line ending in CRLF.
    static let headerLines: String = headers.map { "\($0.name.rawName): \($0.value)\r\n" }.joined()

    /// The comment line that keeps an idle stream open.
    static let keepAlive = ": keep-alive\n\n"

    /// The first bytes of a stream: the reconnection delay, then the current version's event when the client
    /// (which last saw `lastEventID`, if it says) has not seen it. Also the version the client then knows.
    static func opening(lastEventID: Int64?, current: Int64, format: StreamFormat) -> (text: String, sent: Int64) {
        var text = "retry: \(retryMilliseconds)\n\n"
        let sent = lastEventID ?? 0
        guard current > sent else { return (text, sent) }
        text += format.event(current)
        return (text, current)
    }

    /// `text` as one HTTP/1.1 chunk.
    static func chunk(_ text: String) -> ByteBuffer {
        var buffer = ByteBuffer()
        let size = text.utf8.count
        buffer.reserveCapacity(size + 12)
        buffer.writeString(String(size, radix: 16))
        buffer.writeStaticString("\r\n")
        buffer.writeString(text)
        buffer.writeStaticString("\r\n")
        return buffer
    }
}
