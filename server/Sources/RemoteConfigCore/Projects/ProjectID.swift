/// A project's id, `^[a-z][a-z0-9-]{2,62}$`: the one rule for every route that names a project, the head
/// readers of the fronts included, so no way in accepts an id the projects route would refuse.
public struct ProjectID: Sendable, Hashable, CustomStringConvertible {
    /// The id as text.
    public let rawValue: String

    /// The id `text`, or nil when it breaks the rule.
    public init?(_ text: some StringProtocol) {
        guard Self.isValid(text.utf8) else { return nil }
        self.rawValue = String(text)
    }

    public var description: String { rawValue }

    /// The sentence a refused id gets.
    public static let rule =
        "a project id starts with a lowercase letter and has 3 to 63 lowercase letters, digits or dashes"

    /// Whether `bytes` (UTF-8) is a valid id; read in place by the fronts on every client call, so it
    /// allocates nothing, and is inlinable so that the fronts' module specializes it for their byte slices
    /// (a generic call across modules would go through witness tables for every byte).
    @inlinable
    public static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        guard (3...63).contains(bytes.count), let first = bytes.first, first >= 0x61, first <= 0x7A else {
            return false
        }
        return bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
    }
}
