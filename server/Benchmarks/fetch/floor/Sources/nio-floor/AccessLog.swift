import NIOCore

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// One event loop's access log: a line per request in nginx's `combined` format, appended to a buffer in memory
/// and handed to the `LogWriter` every 64 KB, as nginx's `access_log … buffer=64k` does. Used on its loop only.
final class AccessLog {
    private static let batch = 64 * 1024
    private let writer: LogWriter
    private var buffer: ByteBuffer
    private var second = 0
    /// `[27/Nov/2026:02:20:00 +0000]`, formatted again only when the second changes, as nginx caches its time.
    private var stamp: [UInt8] = []

    /// A log whose full buffers go to `writer`.
    init(writer: LogWriter) {
        self.writer = writer
        buffer = ByteBufferAllocator().buffer(capacity: Self.batch + 1024)
    }

    /// Appends the line of a request whose request line is `requestLine`, answered `status` with `bytes` bytes of
    /// body.
    func append(requestLine: UnsafeRawBufferPointer, status: Int, bytes: Int) {
        writePrefix()
        buffer.writeBytes(requestLine)
        writeSuffix(status: status, bytes: bytes)
    }

    /// Appends the line of a request decoded by NIO's codec.
    func append(method: String, uri: String, status: Int, bytes: Int) {
        writePrefix()
        buffer.writeString(method)
        buffer.writeInteger(UInt8(ascii: " "))
        buffer.writeString(uri)
        buffer.writeStaticString(" HTTP/1.1")
        writeSuffix(status: status, bytes: bytes)
    }

    private func writePrefix() {
        let now = time(nil)
        if now != second {
            second = now
            var parts = tm()
            var clock = now
            gmtime_r(&clock, &parts)
            stamp = [UInt8](repeating: 0, count: 40)
            let count = strftime(&stamp, stamp.count, "[%d/%b/%Y:%H:%M:%S +0000]", &parts)
            stamp.removeSubrange(count...)
        }
        buffer.writeStaticString("127.0.0.1 - - ")
        buffer.writeBytes(stamp)
        buffer.writeStaticString(" \"")
    }

    private func writeSuffix(status: Int, bytes: Int) {
        buffer.writeStaticString("\" ")
        buffer.writeString(String(status))
        buffer.writeInteger(UInt8(ascii: " "))
        buffer.writeString(String(bytes))
        buffer.writeStaticString(" \"-\" \"-\"\n")
        if buffer.readableBytes >= Self.batch {
            writer.enqueue(buffer)
            buffer = ByteBufferAllocator().buffer(capacity: Self.batch + 1024)
        }
    }
}
