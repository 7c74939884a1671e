import NIOCore
import NIOHTTP1

/// The one answer the floor sends: the whole bytes for the raw handler, and the same split into a head and a body
/// for the one behind NIO's codec (whose encoder writes the head back out as the same header lines).
struct Answer: Sendable {
    /// Head and body, exactly as read from the file.
    var raw: ByteBuffer
    /// The status line and header fields.
    var head: HTTPResponseHead
    /// The bytes after the head's blank line.
    var body: ByteBuffer

    /// Splits `raw` at its blank line; nil when it is not an HTTP/1.1 answer with a head.
    init?(raw: ByteBuffer) {
        let bytes = Array(raw.readableBytesView)
        guard let end = raw.withUnsafeReadableBytes({ HTTPBytes.headEnd($0) }) else { return nil }
        let lines = String(decoding: bytes[..<(end - 4)], as: UTF8.self).split(separator: "\r\n")
        let status = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard status.count >= 2, status[0] == "HTTP/1.1", let code = Int(status[1]) else { return nil }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.add(
                name: String(line[..<colon]), value: String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        self.raw = raw
        head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: code), headers: headers)
        body = ByteBuffer(bytes: bytes[end...])
    }
}
