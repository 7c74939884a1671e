/// Problems of a body, each with its whole sentence: all of them when a body reports every problem in one answer
/// (a store link), or one whose sentence does not begin with its field ("name exactly one candidate: …").
///
/// Thrown from a body's decoding as it is, not wrapped in a `DecodingError`: the server answers 400 with one
/// detail per problem and a sentence naming the first.
public struct FieldProblems: Error, Sendable, Equatable {
    /// One field at fault.
    public struct Problem: Sendable, Equatable {
        /// The field's path: `parameters.latest_version`.
        public var field: String
        public var reason: String
        /// The whole sentence, naming the field: "country must be a two-letter storefront code such as us or jp".
        public var message: String
    }

    /// What is wrong as a whole, before the first problem's sentence: "the store link is not valid"; nil when
    /// the first problem's sentence says it all.
    public var summary: String?
    /// In the order they were found.
    public private(set) var problems: [Problem] = []

    public init(summary: String?) {
        self.summary = summary
    }

    /// Records that `field` is wrong; `message` names the field.
    public mutating func add(_ field: String, _ reason: String, _ message: String) {
        problems.append(Problem(field: field, reason: reason, message: message))
    }

    /// Throws `self` when any problem was found.
    public func throwIfAny() throws {
        if !problems.isEmpty { throw self }
    }

    /// The answer's sentence: the summary, the first problem and how many more there are.
    public var message: String {
        guard let first = problems.first else { return summary ?? "the request body is not valid" }
        let more = problems.count > 1 ? " (and \(problems.count - 1) more problems)" : ""
        return (summary.map { "\($0): " } ?? "") + first.message + more
    }
}
