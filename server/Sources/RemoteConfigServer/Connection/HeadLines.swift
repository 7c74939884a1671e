extension ArraySlice: HeadBytes where Element == UInt8 {}
extension Slice: HeadBytes where Base == UnsafeBufferPointer<UInt8> {}

/// Byte-level reading of an HTTP/1.1 request head, shared by the fronts that answer plain fetches and
/// streams before NIO's parser (`FetchRequestHead`, `StreamRequestHead`). Strict on purpose: anything unusual
/// is nil, and the request then goes to NIO's full parser.
enum HeadLines {
    /// The index just past the head's final CRLF CRLF, if it is all there.
    static func headEnd<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> Int? where Bytes.Index == Int {
        var index = bytes.startIndex + 3
        while index < bytes.endIndex {
            if bytes[index] == 0x0A, bytes[index - 1] == 0x0D, bytes[index - 2] == 0x0A, bytes[index - 3] == 0x0D {
                return index + 1
            }
            index += 1
        }
        return nil
    }

    /// Reads the head in `bytes[..<end]` (`end` from `headEnd`), the one reading both fronts make: hands the
    /// request line to `requestLine`, then each field line's name and value to `field`, in order, in place
    /// (the slices live only as long as the call). False, and nothing more read, at a bare CR or LF, a
    /// malformed field line, a missing request line, or as soon as a callback says false.
    static func read<Bytes: HeadBytes>(
        _ bytes: Bytes, end: Int, requestLine: (Bytes) -> Bool, field: (_ name: Bytes, _ value: Bytes) -> Bool
    ) -> Bool {
        var sawRequestLine = false
        var start = bytes.startIndex
        var index = bytes.startIndex
        // Lines end in CRLF; a bare LF or CR anywhere is refused. The last line is the empty one.
        while index < end - 2 {
            let byte = bytes[index]
            if byte == 0x0A { return false }
            guard byte == 0x0D else {
                index += 1
                continue
            }
            guard bytes[index + 1] == 0x0A else { return false }
            let line = bytes[start..<index]
            index += 2
            start = index
            guard sawRequestLine else {
                guard requestLine(line) else { return false }
                sawRequestLine = true
                continue
            }
            guard let (name, value) = Self.field(line), field(name, value) else { return false }
        }
        return sawRequestLine
    }

    /// `name: value` with a token name and a value of visible ASCII, spaces and tabs, surrounding white
    /// space removed.
    static func field<Line: HeadBytes>(_ line: Line) -> (name: Line, value: Line)? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { return nil }
        let name = line[..<colon]
        guard name.allSatisfy(isTokenCharacter) else { return nil }
        let value = line[(colon + 1)...]
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 < 0x7F) }) else { return nil }
        return (name, value.trimmingWhitespace)
    }

    /// What a `Connection` value asks of a plain request: `close` (true) or `keep-alive` (false), each token
    /// in any case; nil for any other token (an upgrade, say), which is the full parser's to judge.
    static func closes(_ connection: some HeadBytes) -> Bool? {
        var close = false
        for token in connection.split(separator: UInt8(ascii: ",")) {
            let token = token.trimmingWhitespace
            if token.equalsIgnoringCase("close") {
                close = true
            } else if !token.equalsIgnoringCase("keep-alive") {
                return nil
            }
        }
        return close
    }

    /// RFC 9110 `tchar`.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        // ! # $ % & ' * + - . ^ _ ` | ~
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
        default: return false
        }
    }
}
