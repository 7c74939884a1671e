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

    /// The lines of a head that ends in an empty line (that one left out); nil at a bare CR or LF.
    static func lines(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>]? {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex - 2 {
            let byte = bytes[index]
            if byte == 0x0A { return nil }
            if byte == 0x0D {
                guard bytes[index + 1] == 0x0A else { return nil }
                lines.append(bytes[start..<index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        return lines
    }

    /// `name: value` with a token name and a value of visible ASCII, spaces and tabs, surrounding white
    /// space removed.
    static func field<Line: HeadBytes>(_ line: Line) -> (name: Line, value: Line)? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { return nil }
        let name = line[..<colon]
        guard name.allSatisfy(isTokenCharacter) else { return nil }
        var value = line[(colon + 1)...]
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 < 0x7F) }) else { return nil }
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        return (name, value)
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
