import RemoteConfigCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Access-log lines as bytes, written field by field in the format `StreamLogHandler` gives the server's
/// other log lines (time, level, label, metadata sorted by key, source, message), with the time stamp
/// made once a second rather than per line.
struct AccessLogLines {
    /// About the length of one line; the writer is woken when a buffer passes its threshold by less.
    static let typicalLength = 140

    var bytes: [UInt8] = []
    /// Lines dropped because `bytes` was full.
    var dropped = 0
    private var second = -1
    private var stamp: [UInt8] = []

    /// Writes the line's start, up to and including the source: time, level, label and metadata.
    mutating func start(label: [UInt8], duration: Duration, requestID: String) {
        let now = time(nil)
        if now != second {
            second = now
            stamp = Self.timestamp(now)
        }
        bytes.append(contentsOf: stamp)
        write(" info ")
        bytes.append(contentsOf: label)
        write(": duration_ms=")
        writeMilliseconds(duration)
        write(" hb.request.id=")
        writePath(requestID)
        write(" [RemoteConfigServer] ")
    }

    /// Ends the line with the status.
    mutating func end(status: Int) {
        writeByte(UInt8(ascii: " "))
        writeDecimal(status)
        writeByte(UInt8(ascii: "\n"))
    }

    mutating func write(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func writeByte(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Writes `text` from outside (a path, an id) as it is when it is printable ASCII, else escaped as
    /// `EscapingLogHandler` escapes every log line: a CR or LF must not start a line of its own.
    mutating func writePath(_ text: some StringProtocol) {
        // Checked and copied where the text's bytes lie (a native string's are contiguous): through the UTF-8
        // view's iterator both showed in the fetch profile.
        let appended = text.utf8.withContiguousStorageIfAvailable { utf8 in
            guard Self.isPrintable(utf8) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if appended == true { return }
        if appended == nil, Self.isPrintable(text.utf8) {
            bytes.append(contentsOf: text.utf8)
            return
        }
        bytes.append(contentsOf: EscapingLogHandler.escape(String(text)).utf8)
    }

    /// Printable ASCII only: nothing to escape.
    private static func isPrintable(_ utf8: some Sequence<UInt8>) -> Bool {
        utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// Milliseconds with two decimals, rounded (`1.25`, `0.07`, `1503.40`).
    mutating func writeMilliseconds(_ duration: Duration) {
        let nanoseconds = max(0, duration.inNanoseconds)
        let hundredths = (nanoseconds + 5_000) / 10_000
        writeDecimal(Int(hundredths / 100))
        writeByte(UInt8(ascii: "."))
        let fraction = Int(hundredths % 100)
        writeByte(UInt8(ascii: "0") + UInt8(fraction / 10))
        writeByte(UInt8(ascii: "0") + UInt8(fraction % 10))
    }

    /// A non-negative integer in decimal.
    mutating func writeDecimal(_ value: Int) {
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = max(0, value)
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// `%Y-%m-%dT%H:%M:%S%z` in local time, as `StreamLogHandler` writes it.
    static func timestamp(_ seconds: time_t) -> [UInt8] {
        var seconds = seconds
        var local = tm()
        var buffer = [Int8](repeating: 0, count: 64)
        guard localtime_r(&seconds, &local) != nil else { return Array("<unknown>".utf8) }
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
        return buffer.prefix(length).map { UInt8(bitPattern: $0) }
    }
}
