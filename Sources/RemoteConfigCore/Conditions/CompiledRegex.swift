/// A regular expression compiled once, for `.matches([…])`.
///
/// Matching is "contains a match" (like JavaScript's `RegExp.test`, which Firebase's
/// evaluator uses), not a whole-string match: anchor with `^…$` for that.
struct CompiledRegex: Sendable {
    let pattern: String
    private let regex: SendableRegex

    init(_ pattern: String) throws {
        self.pattern = pattern
        self.regex = SendableRegex(regex: try Regex(pattern))
        // Lower the pattern now, at publish time, rather than on the first fetch.
        _ = matches("")
    }

    func matches(_ text: String) -> Bool {
        (try? regex.regex.firstMatch(in: text)) != nil
    }
}

/// `Regex` is not declared `Sendable` because a regex built from a result builder may capture
/// non-Sendable transform closures. One built from a pattern string has no closures and its
/// compiled program is immutable once lowered (lowering is done once, with an atomic
/// initialisation), so sharing it between tasks is safe.
private struct SendableRegex: @unchecked Sendable {
    let regex: Regex<AnyRegexOutput>
}

extension CompiledRegex: Hashable {
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.pattern == rhs.pattern }

    func hash(into hasher: inout Hasher) {
        hasher.combine(pattern)
    }
}
