import NIOConcurrencyHelpers
import RemoteConfigCore

/// The answers of one published template for one kind of client call (a fetch, an OFREP evaluation), by
/// `MatchSignature`: which of the template's conditions select the caller.
///
/// An answer depends only on that signature, so every caller with the same one gets the same bytes: they
/// are built once, and a call is an evaluation of the conditions and a lookup. This is what serves a device
/// the server has never seen (nearly every fetch in production: every device sends its own
/// `appInstanceId`), since a template has few signatures however many devices ask.
final class AnswersBySignature<Answer: Sendable>: Sendable {
    /// At most this many signatures are remembered; a template whose callers differ more than that starts
    /// again rather than growing without bound.
    static var capacity: Int { 10_000 }

    let compiled: CompiledTemplate
    private let build: @Sendable (MatchSignature) -> Answer
    private let answers = NIOLockedValueBox<[MatchSignature: Answer]>([:])

    /// `build` makes the answer of a signature the first time it is asked for.
    init(_ compiled: CompiledTemplate, build: @escaping @Sendable (MatchSignature) -> Answer) {
        self.compiled = compiled
        self.build = build
    }

    /// The answer for `context`.
    func answer(for context: FetchContext) -> Answer {
        let signature = compiled.signature(for: context)
        if let answer = answers.withLockedValue({ $0[signature] }) { return answer }
        let answer = build(signature)
        answers.withLockedValue { answers in
            if answers.count >= Self.capacity { answers.removeAll(keepingCapacity: true) }
            answers[signature] = answer
        }
        return answer
    }
}
