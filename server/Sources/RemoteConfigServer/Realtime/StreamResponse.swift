import HTTPTypes
import NIOCore

/// What a stream's answer is made of, for both ways a stream is served (`StreamFront` on the event loop,
/// `StreamController` behind the router, both through `StreamEndpoint`): its headers, the reconnection
/// delay, the opening and the keep-alive, defined once so the two cannot drift apart.
enum StreamResponse {
    /// The reconnection delay advised to clients (`retry:`).
    static let retryMilliseconds = 2000

    /// The headers of a stream's 200 (without the request id, CORS and framing, which each way adds).
    static let headers: HTTPFields = [
        .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache",
        .accelBuffering: "no",
    ]

    /// The status line of a stream's 200, as the front writes it.
    static let statusLine = "HTTP/1.1 200 OK\r\n"

    /// One header line as it goes on the wire, ending in CRLF.
    static func headerLine(_ name: HTTPField.Name, _ value: String) -> String {
        "\(name.rawName): \(value)\r\n"
    }

    /// `headers` as they go on the wire.
    static let headerLines: String = headers.map { headerLine($0.name, $0.value) }.joined()

    /// The lines that end the front's head: the `Server` header the router's answers carry too, and the
    /// chunked framing the router's codec adds to a body of unknown length.
    static let framingLines =
        headerLine(.server, ServerConfiguration.serverName) + headerLine(.transferEncoding, "chunked") + "\r\n"

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
