/// Why a JSON text was rejected, and where.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 0-based byte offset into the input where the problem was found.
    public var offset: Int
    /// What went wrong, for a person ("expected `:`").
    public var message: String

    /// Creates an error.
    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String { "\(message) at byte \(offset)" }
}
