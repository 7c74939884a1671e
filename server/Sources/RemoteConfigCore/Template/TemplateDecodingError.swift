/// Why a JSON document is not a template, with the path of the offending field.
public struct TemplateDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A dotted path like `parameters.max_items.defaultValue`, or `conditions[2].name`;
    /// empty for the document itself.
    public var field: String
    /// What is wrong, for a person.
    public var message: String
    /// For malformed JSON, the 0-based byte offset of the problem.
    public var byteOffset: Int?

    /// Creates an error.
    public init(field: String, message: String, byteOffset: Int? = nil) {
        self.field = field
        self.message = message
        self.byteOffset = byteOffset
    }

    public var description: String {
        if let byteOffset { return "\(message) at byte \(byteOffset)" }
        return field.isEmpty ? message : "\(field): \(message)"
    }
}
