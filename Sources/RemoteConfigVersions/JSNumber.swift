/// Reads text as JavaScript's `Number(text)` does, because Firebase's server-side evaluator compares
/// numbers and version parts that way: surrounding white space is ignored, an empty text is 0, `Infinity`
/// and `-Infinity` are numbers, `0x1F`, `0o17` and `0b101` are integers, and anything else that is not a
/// decimal literal (`12px`, `1_000`, `inf`) is NaN, returned here as `nil`.
public enum JSNumber {
    /// The number JavaScript's `Number()` gives for `text`, or `nil` where it gives NaN.
    public static func parse(_ text: some StringProtocol) -> Double? {
        let scalars = Substring(text).unicodeScalars
        guard let first = scalars.firstIndex(where: { !isWhiteSpace($0) }) else { return 0 }
        let last = scalars.lastIndex(where: { !isWhiteSpace($0) })!
        let literal = Substring(scalars[first...last])
        if let value = nonDecimal(literal) { return value.isNaN ? nil : value }
        return decimal(literal)
    }

    /// ECMAScript's StrWhiteSpaceChar: white space (including U+FEFF and every `Zs`) and line terminators.
    public static func isWhiteSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0xFEFF, 0x2028, 0x2029: return true
        // No other ASCII character is white space; asking Unicode's tables for every digit is what made
        // version parsing show up in the fetch profile.
        case 0..<0x80: return false
        default: return scalar.properties.generalCategory == .spaceSeparator
        }
    }

    /// `0x…`, `0o…`, `0b…` (no sign, at least one digit).
    private static func nonDecimal(_ literal: Substring) -> Double? {
        let bytes = Array(literal.utf8)
        guard bytes.count > 2, bytes[0] == UInt8(ascii: "0") else { return nil }
        let radix: Double
        switch bytes[1] {
        case UInt8(ascii: "x"), UInt8(ascii: "X"): radix = 16
        case UInt8(ascii: "o"), UInt8(ascii: "O"): radix = 8
        case UInt8(ascii: "b"), UInt8(ascii: "B"): radix = 2
        default: return nil
        }
        var value = 0.0
        for byte in bytes[2...] {
            guard let digit = hexDigit(byte), Double(digit) < radix else { return .nan }
            value = value * radix + Double(digit)
        }
        return value
    }

    private static func hexDigit(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte - UInt8(ascii: "A")) + 10
        default: return nil
        }
    }

    /// `[+-]` then `Infinity`, or digits with an optional fraction and exponent (`5.`, `.5`, `1e3`).
    private static func decimal(_ literal: Substring) -> Double? {
        var bytes = Array(literal.utf8)[...]
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        if bytes.elementsEqual("Infinity".utf8) { return negative ? -.infinity : .infinity }
        var index = bytes.startIndex
        func digits() -> Int {
            let start = index
            while index < bytes.endIndex, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                index += 1
            }
            return index - start
        }
        var mantissaDigits = digits()
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: ".") {
            index += 1
            mantissaDigits += digits()
        }
        guard mantissaDigits > 0 else { return nil }
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { return nil }
        }
        guard index == bytes.endIndex else { return nil }
        // The literal is now known to be plain decimal syntax, which Double's own parser reads exactly
        // (overflow gives infinity, as in JavaScript).
        guard let magnitude = Double(String(decoding: bytes, as: UTF8.self)) else { return nil }
        return negative ? -magnitude : magnitude
    }
}
