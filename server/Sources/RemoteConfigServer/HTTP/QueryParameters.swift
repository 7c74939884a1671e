import Hummingbird
import HummingbirdCore

/// Strict query strings: every route names the parameters it knows, and a request with any other one, or
/// with one of them twice, is refused with 400 naming it, so a misspelt `validateOnly` can never publish.
enum QueryParameters {
    /// Throws 400 (`UNKNOWN_PARAMETER` or `REPEATED_PARAMETER`, the parameter as the field) unless every
    /// parameter of `query` (the text after `?`, nil or empty for none) is in `allowed`, each at most once.
    static func check(_ query: Substring?, allowed: Set<String>) throws(APIError) {
        guard let query, !query.isEmpty else { return }
        var seen: [String] = []
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name = decode(item.prefix { $0 != "=" })
            guard allowed.contains(name) else {
                throw APIError.invalidField(
                    name, reason: "UNKNOWN_PARAMETER",
                    "unknown query parameter '\(name)'; this route takes "
                        + (allowed.isEmpty ? "none" : allowed.sorted().joined(separator: ", ")))
            }
            guard !seen.contains(name) else {
                throw APIError.invalidField(name, reason: "REPEATED_PARAMETER", "query parameter '\(name)' is repeated")
            }
            seen.append(name)
        }
    }

    /// Throws 400 `REPEATED_PARAMETER` when a parameter of `query` comes twice; any name is taken (a route that
    /// another server redirects to, with parameters of its own).
    static func checkRepeats(_ query: Substring?) throws(APIError) {
        guard let query, !query.isEmpty else { return }
        var seen = Set<String>()
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name = decode(item.prefix { $0 != "=" })
            guard seen.insert(name).inserted else {
                throw APIError.invalidField(name, reason: "REPEATED_PARAMETER", "query parameter '\(name)' is repeated")
            }
        }
    }

    /// `check` for a request's URI.
    static func check(_ uri: URI, allowed: Set<String>) throws(APIError) {
        try check(uri.query.map { Substring($0) }, allowed: allowed)
    }

    /// The decoded value of the first parameter called `name`, if any.
    static func value(of name: String, in query: Substring?) -> String? {
        guard let query, !query.isEmpty else { return nil }
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let key = item.prefix { $0 != "=" }
            guard decode(key) == name else { continue }
            return decode(item.dropFirst(key.count + 1))
        }
        return nil
    }

    /// Percent-decoding, with `+` as a space (HTML forms); malformed escapes are kept as they are.
    static func decode(_ text: Substring) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(text)
        }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let high = hexValue(iterator[iterator.startIndex]),
                let low = hexValue(iterator[iterator.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
