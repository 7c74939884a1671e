/// A strict RFC 8259 parser: UTF-8 only, no trailing commas, no comments, no duplicate keys.
enum JSONParser {
    /// Deep enough for any real template, shallow enough that recursion cannot exhaust the stack.
    static let maximumDepth = 512

    /// Parses the one JSON text in `bytes`, read in place (`JSONValue(parsing:)` passes a body's own
    /// storage): copying a fetch body into an array first, and indexing it with its checks, showed in the
    /// fetch path's profile.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        var parser = Cursor(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.index < bytes.count {
            throw parser.error("unexpected \(parser.describeCurrent()) after the JSON value")
        }
        return value
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        func error(_ message: String, at offset: Int? = nil) -> JSONParseError {
            JSONParseError(offset: offset ?? index, message: message)
        }

        func describeCurrent() -> String {
            guard index < bytes.count else { return "end of input" }
            let byte = bytes[index]
            if byte >= 0x21 && byte < 0x7F { return "`\(Character(Unicode.Scalar(byte)))`" }
            return "byte 0x\(String(byte, radix: 16, uppercase: true))"
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func expect(_ byte: UInt8, _ name: String) throws(JSONParseError) {
            guard index < bytes.count, bytes[index] == byte else {
                throw error("expected `\(name)` but found \(describeCurrent())")
            }
            index += 1
        }

        mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
            guard index < bytes.count else { throw error("expected a JSON value but found end of input") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
            case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"):
                try parseLiteral("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try parseLiteral("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try parseLiteral("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
            default: throw error("expected a JSON value but found \(describeCurrent())")
            }
        }

        mutating func parseLiteral(_ word: StaticString) throws(JSONParseError) {
            let start = index
            let utf8 = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            for expected in utf8 {
                guard index < bytes.count, bytes[index] == expected else {
                    throw error("invalid literal, expected `\(word)`", at: start)
                }
                index += 1
            }
        }

        mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
            if depth > JSONParser.maximumDepth { throw error("nesting deeper than \(JSONParser.maximumDepth) levels") }
            index += 1  // {
            var object = JSONObject()
            object.reserveCapacity(8)  // most objects are small: one allocation instead of four as they grow
            // Duplicates are found by comparing with the keys so far while the object is small (fetch bodies,
            // conditions, values: hashing every key showed in the fetch profile); a set takes over past that.
            var seen: Set<String>?
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(object)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw error("expected a member name (a string) but found \(describeCurrent())")
                }
                let keyOffset = index
                let key = try parseString()
                guard Self.isNew(key, in: object, seen: &seen) else {
                    throw error("duplicate key \"\(key)\"", at: keyOffset)
                }
                skipWhitespace()
                try expect(UInt8(ascii: ":"), ":")
                skipWhitespace()
                let value = try parseValue(depth: depth)
                object.appendUnchecked(key: key, value: value)
                skipWhitespace()
                guard index < bytes.count else { throw error("expected `,` or `}` but found end of input") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(object)
                } else {
                    throw error("expected `,` or `}` but found \(describeCurrent())")
                }
            }
        }

        /// Whether `key` is not yet a member of `object`; records it.
        static func isNew(_ key: String, in object: JSONObject, seen: inout Set<String>?) -> Bool {
            if seen == nil {
                guard object.count >= 16 else { return !object.members.contains { $0.key == key } }
                seen = Set(object.members.map(\.key))
            }
            return seen!.insert(key).inserted
        }

        mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
            if depth > JSONParser.maximumDepth { throw error("nesting deeper than \(JSONParser.maximumDepth) levels") }
            index += 1  // [
            var elements: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try parseValue(depth: depth))
                skipWhitespace()
                guard index < bytes.count else { throw error("expected `,` or `]` but found end of input") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                } else {
                    throw error("expected `,` or `]` but found \(describeCurrent())")
                }
            }
        }

        mutating func parseNumber() throws(JSONParseError) -> String {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit in number") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, isDigit(bytes[index]) { throw error("leading zeros are not allowed") }
            } else {
                skipDigits()
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit after `.`") }
                skipDigits()
            }
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit in exponent") }
                skipDigits()
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        mutating func skipDigits() {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }

        mutating func parseString() throws(JSONParseError) -> String {
            let quote = index
            index += 1
            var runStart = index
            // The decoded bytes, once an escape is seen (most strings have none). One buffer grown in place:
            // building a `String` per escape copied what was decoded so far, quadratic in the escapes.
            var decoded: [UInt8] = []
            var escaped = false
            while true {
                guard index < bytes.count else { throw error("unterminated string", at: quote) }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    try validateRun(runStart..<index)
                    let run = bytes[runStart..<index]
                    index += 1
                    guard escaped else { return String(decoding: run, as: UTF8.self) }
                    decoded.append(contentsOf: run)
                    return String(decoding: decoded, as: UTF8.self)
                } else if byte == UInt8(ascii: "\\") {
                    try validateRun(runStart..<index)
                    if !escaped {
                        escaped = true
                        decoded.reserveCapacity(index - runStart + 16)
                    }
                    decoded.append(contentsOf: bytes[runStart..<index])
                    let scalar = try parseEscape()
                    UTF8.encode(scalar) { decoded.append($0) }
                    runStart = index
                } else if byte < 0x20 {
                    throw error("control character in string must be escaped")
                } else {
                    index += 1
                }
            }
        }

        /// Checks raw UTF-8 between escapes, reporting the offset of the first bad byte.
        func validateRun(_ range: Range<Int>) throws(JSONParseError) {
            var position = range.lowerBound
            while position < range.upperBound {
                let lead = bytes[position]
                if lead < 0x80 {
                    position += 1
                    continue
                }
                let length: Int
                let lowerBound: UInt8
                let upperBound: UInt8
                switch lead {
                case 0xC2...0xDF: (length, lowerBound, upperBound) = (2, 0x80, 0xBF)
                case 0xE0: (length, lowerBound, upperBound) = (3, 0xA0, 0xBF)  // no overlongs
                case 0xED: (length, lowerBound, upperBound) = (3, 0x80, 0x9F)  // no surrogates
                case 0xE1...0xEF: (length, lowerBound, upperBound) = (3, 0x80, 0xBF)
                case 0xF0: (length, lowerBound, upperBound) = (4, 0x90, 0xBF)
                case 0xF1...0xF3: (length, lowerBound, upperBound) = (4, 0x80, 0xBF)
                case 0xF4: (length, lowerBound, upperBound) = (4, 0x80, 0x8F)  // at most U+10FFFF
                default: throw error("invalid UTF-8", at: position)
                }
                guard position + length <= range.upperBound else { throw error("invalid UTF-8", at: position) }
                let second = bytes[position + 1]
                guard second >= lowerBound && second <= upperBound else { throw error("invalid UTF-8", at: position) }
                for offset in 2..<max(2, length) where bytes[position + offset] & 0xC0 != 0x80 {
                    throw error("invalid UTF-8", at: position)
                }
                position += length
            }
        }

        mutating func parseEscape() throws(JSONParseError) -> Unicode.Scalar {
            let start = index
            index += 1  // backslash
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let unit = try parseHex4()
                if unit >= 0xD800 && unit <= 0xDBFF {
                    // A high surrogate must be followed by an escaped low surrogate.
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw error("unpaired surrogate in \\u escape", at: start) }
                    index += 2
                    let low = try parseHex4()
                    guard low >= 0xDC00 && low <= 0xDFFF else {
                        throw error("unpaired surrogate in \\u escape", at: start)
                    }
                    let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                    return Unicode.Scalar(value)!
                }
                guard let scalar = Unicode.Scalar(UInt32(unit)) else {
                    throw error("unpaired surrogate in \\u escape", at: start)
                }
                return scalar
            default:
                throw error("invalid escape sequence", at: start)
            }
        }

        mutating func parseHex4() throws(JSONParseError) -> UInt16 {
            guard index + 4 <= bytes.count else { throw error("expected 4 hex digits") }
            var value: UInt16 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw error("expected a hex digit")
                }
                value = value << 4 | UInt16(digit)
                index += 1
            }
            return value
        }
    }
}
