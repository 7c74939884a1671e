/// Why a pattern is not a valid RE2 expression.
struct RegexError: Error, Sendable {
    let reason: String
}
