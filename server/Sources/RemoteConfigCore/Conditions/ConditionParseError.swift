/// Why a condition expression was rejected, where, and what was expected there.
public struct ConditionParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The family of problem, so a validator can choose `INVALID_EXPRESSION` or `LIMIT_EXCEEDED`.
    public enum Kind: String, Sendable, Hashable {
        /// The text does not follow the grammar (`expected ']' at 27`).
        case syntax
        /// The grammar fits but a value is not acceptable: unknown time zone or platform, bad
        /// regular expression, malformed date, percent outside 0...100.
        case invalidValue
        /// More than 50 atoms in one condition.
        case tooManyAtoms
        /// More than 50 ids in one `app.firebaseInstallationId in [...]`.
        case tooManyInstanceIds
        /// Parentheses or `!` nested deeper than `ConditionParser.maximumDepth`.
        case nestingTooDeep
    }

    /// The family of problem.
    public var kind: Kind
    /// The 0-based offset, in characters, where the problem starts.
    public var position: Int
    /// A sentence for a person, e.g. "expected `]` but found `)`".
    public var message: String

    /// Creates an error.
    public init(kind: Kind, position: Int, message: String) {
        self.kind = kind
        self.position = position
        self.message = message
    }

    /// Whether this is one of API.md's limits (atoms, ids, nesting) rather than a mistake.
    public var isLimitExceeded: Bool {
        switch kind {
        case .tooManyAtoms, .tooManyInstanceIds, .nestingTooDeep: return true
        case .syntax, .invalidValue: return false
        }
    }

    /// The validation reason API.md names for this error.
    public var validationReason: String { isLimitExceeded ? "LIMIT_EXCEEDED" : "INVALID_EXPRESSION" }

    /// "expected `]` but found `)` at 27": the message followed by the 0-based position.
    public var description: String { "\(message) at \(position)" }
}
