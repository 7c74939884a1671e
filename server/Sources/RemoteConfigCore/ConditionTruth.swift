import Foundation

/// The three outcomes of evaluating a condition (SQL-style logic; unknown does not match).
public enum ConditionTruth: Sendable, Hashable {
    case `true`
    case `false`
    /// An input the condition needs was not sent.
    case unknown

    /// Whether the condition selects the caller: only `.true` does.
    public var matches: Bool { self == .true }

    static func from(_ flag: Bool) -> ConditionTruth { flag ? .true : .false }
}
