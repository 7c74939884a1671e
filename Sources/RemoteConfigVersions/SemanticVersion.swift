/// A dotted version as Firebase's evaluator compares them: split on `.`, each part read as JavaScript's
/// `Number()` reads it, at most 5 parts, missing parts are 0.
///
/// `2.1` equals `2.1.0`, ` 3 ` is the version 3, and an empty part is 0 (`1..2` is `1.0.2`), because that is
/// what `'1..2'.split('.').map(Number)` gives. Text with a part that is not a number (`2.x`, `1.2-beta`) or
/// with more than 5 parts is not a version, and makes any comparison with it false.
public struct SemanticVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The maximum number of dot-separated parts.
    public static let maximumParts = 5

    // Five stored parts instead of an array: parsing and comparing never allocate.
    private var p0: Double = 0
    private var p1: Double = 0
    private var p2: Double = 0
    private var p3: Double = 0
    private var p4: Double = 0

    /// Parses `major.minor.patch…`; `nil` when it is not a version by the rules above.
    public init?(_ text: some StringProtocol) {
        if let plain = Self.plain(text.utf8) {
            self = plain
            return
        }
        self.init(general: text)
    }

    /// Parses a `String`, what callers hold. Called from another module, the generic form above runs
    /// unspecialised, reading each byte through the protocol's witnesses; this one reads them directly.
    public init?(_ text: String) {
        if let plain = Self.plain(text.utf8) {
            self = plain
            return
        }
        self.init(general: text)
    }

    /// The general rules, for anything `plain` does not read.
    private init?(general text: some StringProtocol) {
        self.init()
        var part = 0
        for piece in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard part < Self.maximumParts, let value = JSNumber.parse(piece) else { return nil }
            self[part] = value
            part += 1
        }
    }

    private init() {}

    /// The common case, read without allocating: digits and dots only, 1 to 15 digits a part (so the
    /// value is exact), at most 5 parts. nil for anything else, which the general rules then read.
    private static func plain(_ utf8: some Collection<UInt8>) -> SemanticVersion? {
        var version = SemanticVersion()
        var part = 0
        var value = 0.0
        var digits = 0
        for byte in utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, part < maximumParts - 1 else { return nil }
                version[part] = value
                part += 1
                value = 0
                digits = 0
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"), digits < 15 {
                value = value * 10 + Double(byte - UInt8(ascii: "0"))
                digits += 1
            } else {
                return nil
            }
        }
        guard digits > 0 else { return nil }
        version[part] = value
        return version
    }

    /// Creates a version from parts (at most 5).
    public init(parts: [Double]) {
        precondition(parts.count <= Self.maximumParts, "at most \(Self.maximumParts) parts")
        for (index, value) in parts.enumerated() { self[index] = value }
    }

    private subscript(index: Int) -> Double {
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
    public var parts: [Double] { [p0, p1, p2, p3, p4] }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.p0, lhs.p1, lhs.p2, lhs.p3, lhs.p4) < (rhs.p0, rhs.p1, rhs.p2, rhs.p3, rhs.p4)
    }

    public var description: String {
        parts.map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int64($0)) : String($0) }.joined(separator: ".")
    }
}
