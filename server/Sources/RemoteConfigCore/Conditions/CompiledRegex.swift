import CRE2Shim

/// A regular expression compiled once, for `.matches([…])`: RE2 syntax, matched in time linear in the
/// input, as Firebase documents for its conditions.
///
/// Matching is "contains a match" (like JavaScript's `RegExp.test`, which Firebase's evaluator uses), not a
/// whole-string match: anchor with `^…$` for that. A pattern RE2 cannot express in linear time
/// (backreferences, lookaround) does not compile, so it is refused at publish.
struct CompiledRegex: Sendable {
    let pattern: String
    private let program: RE2Program

    /// Compiles `pattern`; throws RE2's reason when it is not a valid RE2 expression.
    init(_ pattern: String) throws(RegexError) {
        self.pattern = pattern
        var reason = [CChar](repeating: 0, count: 256)
        // The length is passed, so a NUL inside the pattern is part of it, and an empty pattern still has a
        // valid pointer (to its terminator) for the whole call.
        let length = pattern.utf8.count
        let compiled = pattern.withCString { pattern in rc_re2_new(pattern, length, &reason, 256) }
        guard let compiled else {
            let end = reason.firstIndex(of: 0) ?? reason.endIndex
            throw RegexError(reason: String(decoding: reason[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.program = RE2Program(pointer: compiled)
    }

    /// Whether the expression matches somewhere in `text`.
    func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { bytes in
                rc_re2_partial_match(program.pointer, bytes.baseAddress, bytes.count) == 1
            }
        }
    }
}

/// Owns a compiled RE2 program. RE2 objects are immutable after construction and documented as safe for
/// concurrent use from many threads, so sharing the pointer between tasks is safe.
private final class RE2Program: @unchecked Sendable {
    let pointer: OpaquePointer

    init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        rc_re2_delete(pointer)
    }
}

extension CompiledRegex: Hashable {
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.pattern == rhs.pattern }

    func hash(into hasher: inout Hasher) {
        hasher.combine(pattern)
    }
}
