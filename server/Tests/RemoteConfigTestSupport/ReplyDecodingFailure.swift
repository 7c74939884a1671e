import RemoteConfigAPI

/// A reply whose body is not the API type a test expected: the type, where it does not fit, and the body itself.
public struct ReplyDecodingFailure: Error, CustomStringConvertible {
    public let description: String

    init(type: Any.Type, error: DecodingError, text: String) {
        let (field, problem) = FieldProblem.of(error)
        description = "the body is not a \(type): \(problem.sentence(field: field)) (\(problem.reason))\n\(text)"
    }
}
