import Foundation

/// One problem of a template: the field at fault (a dotted path), a machine-readable reason and a sentence.
public struct ValidationIssue: Sendable, Hashable, CustomStringConvertible {
    public var field: String
    public var reason: String
    public var message: String

    public init(field: String, reason: String, message: String) {
        self.field = field
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(field): \(message) [\(reason)]" }
}
