import RemoteConfigVersions

/// String operators compare values with surrounding white space removed on both sides, as Firebase's
/// evaluator does with JavaScript's `trim()` (`exactlyMatches([' basic'])` matches `' basic '`).
enum JSText {
    /// `text` without leading and trailing white space; no copy when there is none.
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.first, let last = scalars.last,
            JSNumber.isWhiteSpace(first) || JSNumber.isWhiteSpace(last)
        else { return text }
        guard let start = scalars.firstIndex(where: { !JSNumber.isWhiteSpace($0) }) else { return "" }
        let end = scalars.lastIndex(where: { !JSNumber.isWhiteSpace($0) })!
        return String(scalars[start...end])
    }
}
