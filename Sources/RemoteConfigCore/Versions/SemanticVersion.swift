/// A dotted version as API.md compares them: up to 5 numeric parts, missing parts are 0.
///
/// `2.1` equals `2.1.0`. Text with a part that is not a number (`2.x`, `1..2`, `-1`, `""`) or
/// with more than 5 parts is not a version, and makes any comparison with it false.
public struct SemanticVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The maximum number of dot-separated parts.
    public static let maximumParts = 5

    // Five stored parts instead of an array: parsing and comparing never allocate.
    private var p0: UInt64 = 0
    private var p1: UInt64 = 0
    private var p2: UInt64 = 0
    private var p3: UInt64 = 0
    private var p4: UInt64 = 0

    /// Parses `major.minor.patch…`; `nil` when it is not a version by the rules above.
    public init?(_ text: some StringProtocol) {
        var part = 0
        var value: UInt64 = 0
        var digits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, part < Self.maximumParts - 1 else { return nil }
                self[part] = value
                part += 1
                value = 0
                digits = 0
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
                guard !overflow1, !overflow2 else { return nil }
                value = sum
                digits += 1
            } else {
                return nil
            }
        }
        guard digits > 0 else { return nil }
        self[part] = value
    }

    /// Creates a version from parts (at most 5).
    public init(parts: [UInt64]) {
        precondition(parts.count <= Self.maximumParts, "at most \(Self.maximumParts) parts")
        for (index, value) in parts.enumerated() { self[index] = value }
    }

    private subscript(index: Int) -> UInt64 {
        get {
            switch index {
            case 0: return p0
            case 1: return p1
            case 2: return p2
            case 3: return p3
            default: return p4
            }
        }
        set {
            switch index {
            case 0: p0 = newValue
            case 1: p1 = newValue
            case 2: p2 = newValue
            case 3: p3 = newValue
            default: p4 = newValue
            }
        }
    }

    /// All five parts, padded with zeros.
    public var parts: [UInt64] { [p0, p1, p2, p3, p4] }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.p0, lhs.p1, lhs.p2, lhs.p3, lhs.p4) < (rhs.p0, rhs.p1, rhs.p2, rhs.p3, rhs.p4)
    }

    public var description: String { parts.map(String.init).joined(separator: ".") }
}
