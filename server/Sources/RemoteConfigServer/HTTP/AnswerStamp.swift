import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `Date` and `Server` lines the router's answers carry, for a front that writes its heads by hand, so that
/// an answer's headers do not depend on which door it went through. Made again only when the second changes:
/// formatting the date per answer would cost more than the rest of the head.
struct AnswerStamp {
    private var second: time_t = -1
    private var lines = ByteBuffer()

    /// Writes the lines, each ending in CRLF, for the current second into `out`.
    mutating func write(into out: inout ByteBuffer) {
        let now = time(nil)
        if now != second {
            second = now
            lines = ByteBuffer(
                string: "Date: \(HTTPDate.at(now))\r\nServer: \(ServerConfiguration.serverName)\r\n")
        }
        out.writeImmutableBuffer(lines)
    }
}
