/// Why one field of a request body is refused: a machine-readable reason and a sentence for a person.
///
/// Thrown from a body's `init(from:)` (or by `APIDecoder` itself); `APIDecoder` attaches the field's path, so the
/// server answers 400 with `{"field": <path>, "reason": <reason>}`.
public struct FieldProblem: Error, Sendable, Equatable {
    /// `REQUIRED`, `NOT_A_STRING`, `OUT_OF_RANGE`, …
    public var reason: String
    /// What is wrong, without the field's name (the path is put before it): "must be a string".
    public var message: String

    public init(reason: String, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// The sentence naming the field: "displayName must be a string".
    public func sentence(field: String) -> String { field.isEmpty ? message : "\(field) \(message)" }

    /// The problem a `DecodingError` describes: the one a body threw, else one named after the expected type.
    public static func of(_ error: DecodingError) -> (field: String, problem: FieldProblem) {
        switch error {
        case .keyNotFound(let key, let context):
            return (path(context.codingPath + [key]), FieldProblem(reason: "REQUIRED", "is required"))
        case .valueNotFound(_, let context):
            return (path(context.codingPath), FieldProblem(reason: "REQUIRED", "is required"))
        case .typeMismatch(let type, let context):
            if let problem = context.underlyingError as? FieldProblem { return (path(context.codingPath), problem) }
            return (path(context.codingPath), mismatch(type))
        case .dataCorrupted(let context):
            let problem =
                context.underlyingError as? FieldProblem
                ?? FieldProblem(reason: "INVALID_VALUE", "is not valid: \(context.debugDescription)")
            return (path(context.codingPath), problem)
        @unknown default:
            return ("body", FieldProblem(reason: "INVALID_VALUE", "is not valid"))
        }
    }

    /// A field path as the API's error details write it: `conditions[0].name`, `body` for the whole body.
    public static func path(_ codingPath: [any CodingKey]) -> String {
        guard !codingPath.isEmpty else { return "body" }
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }

    /// The error a body's `init(from:)` throws for the member at `path` (below the decoder's own path).
    public static func at(_ path: [any CodingKey], of decoder: any Decoder, _ problem: FieldProblem) -> DecodingError {
        .dataCorrupted(
            .init(codingPath: decoder.codingPath + path, debugDescription: problem.message, underlyingError: problem))
    }

    /// The problem of a value of the wrong JSON type, by the Swift type that was expected.
    static func mismatch(_ type: Any.Type) -> FieldProblem {
        switch type {
        case is String.Type: FieldProblem(reason: "NOT_A_STRING", "must be a string")
        case is Bool.Type: FieldProblem(reason: "NOT_A_BOOLEAN", "must be true or false")
        case is any BinaryInteger.Type: FieldProblem(reason: "NOT_A_NUMBER", "must be a whole number")
        case is any BinaryFloatingPoint.Type: FieldProblem(reason: "NOT_A_NUMBER", "must be a number")
        default: FieldProblem(reason: "INVALID_TYPE", "is not of the expected type")
        }
    }

    static let notAnObject = FieldProblem(reason: "NOT_AN_OBJECT", "must be a JSON object")
    static let notAnArray = FieldProblem(reason: "NOT_AN_ARRAY", "must be an array")
}
