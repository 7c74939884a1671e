/// A dotted app version compared exactly as the server compares `app.version` (API.md).
///
/// Split on `.`; each part a non-negative integer; at most 5 parts; missing parts are 0 (`2.1` equals `2.1.0`).
/// Text that breaks these rules (`2.x`, `1..2`, `-1`, `""`, six parts) is not a version: `init` returns `nil`,
/// and the server treats any comparison with it as false.
public struct AppVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The maximum number of parts.
    public static let maximumParts = 5

    /// The five parts, padded with zeros.
    public let parts: [UInt64]

    /// Parses a version; `nil` when the text is not a version by the rules above.
    public init?(_ text: some StringProtocol) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !pieces.isEmpty, pieces.count <= Self.maximumParts else { return nil }
        var parts: [UInt64] = []
        for piece in pieces {
            guard !piece.isEmpty, piece.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let value = UInt64(piece)
            else { return nil }
            parts.append(value)
        }
        self.parts = parts + Array(repeating: 0, count: Self.maximumParts - parts.count)
    }

    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        lhs.parts.lexicographicallyPrecedes(rhs.parts)
    }

    /// The version with all five parts, such as `2.1.0.0.0`.
    public var description: String { parts.map(String.init).joined(separator: ".") }

    /// The server's comparison on text: `true` only when both sides are versions and `lhs < rhs`.
    public static func isVersion(_ lhs: String, below rhs: String) -> Bool {
        guard let left = AppVersion(lhs), let right = AppVersion(rhs) else { return false }
        return left < right
    }
}
