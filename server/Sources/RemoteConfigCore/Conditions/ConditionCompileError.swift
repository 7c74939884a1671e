/// A condition that failed to compile, for reporting with its name and position.
public struct ConditionCompileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The index in the template's `conditions`.
    public var index: Int
    /// The condition's name.
    public var name: String
    /// The parse error, with the character position in the expression.
    public var error: ConditionParseError

    /// Creates an error.
    public init(index: Int, name: String, error: ConditionParseError) {
        self.index = index
        self.name = name
        self.error = error
    }

    public var description: String { "condition \"\(name)\": \(error)" }
}
