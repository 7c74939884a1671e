import Foundation

/// `==` or `!=`.
public enum EqualityOperator: String, Sendable, Hashable {
    case equal = "=="
    case notEqual = "!="
}
