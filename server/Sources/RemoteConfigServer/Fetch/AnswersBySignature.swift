import NIOConcurrencyHelpers
import RemoteConfigCore

/// The answers of one published template for one kind of client call (a fetch, an OFREP evaluation), by
/// `MatchSignature`: which of the template's conditions select the caller.
///
/// An answer depends only on that signature, so every caller with the same one gets the same bytes: they
/// are built once, and a call is an evaluation of the conditions and a lookup. This is what serves a device
/// the server has never seen (nearly every fetch in production: every device sends its own
/// `appInstanceId`).
///
/// Memory is bounded across templates, not only per template: a template whose percent conditions split its
/// fleet finely has thousands of signatures of a few kilobytes each, and a server holds one template per
/// project, so 200 such projects held gigabytes. Every template's answers share one `AnswerBudget`; when it
/// is spent, the template that needs room forgets its own answers and starts again, so busy templates keep
/// what they use and memory stays within the budget.
final class AnswersBySignature<Answer: Sendable>: Sendable {
    /// At most this many signatures per template, whatever the budget.
    static var capacity: Int { 10_000 }

    let compiled: CompiledTemplate
    let budget: AnswerBudget
    private let build: @Sendable (MatchSignature) -> Answer
    private let weigh: @Sendable (Answer) -> Int
    private struct State {
        var answers: [MatchSignature: Answer] = [:]
        var bytes = 0
    }
    private let state = NIOLockedValueBox(State())

    /// `build` makes the answer of a signature the first time it is asked for; `weigh` says about how many
    /// bytes it holds, counted against `budget`.
    init(
        _ compiled: CompiledTemplate, budget: AnswerBudget = .shared, weigh: @escaping @Sendable (Answer) -> Int,
        build: @escaping @Sendable (MatchSignature) -> Answer
    ) {
        self.compiled = compiled
        self.budget = budget
        self.build = build
        self.weigh = weigh
    }

    deinit {
        budget.release(state.withLockedValue { $0.bytes })
    }

    /// The answer for `context`.
    func answer(for context: FetchContext) -> Answer {
        let signature = compiled.signature(for: context)
        if let answer = state.withLockedValue({ $0.answers[signature] }) { return answer }
        let answer = build(signature)
        let bytes = weigh(answer)
        let budget = self.budget
        state.withLockedValue { state in
            if state.answers.count >= Self.capacity || !budget.reserve(bytes) {
                budget.release(state.bytes)
                state.answers.removeAll()
                state.bytes = 0
                // Other templates may hold the whole budget: then this answer is not remembered.
                guard budget.reserve(bytes) else { return }
            }
            state.answers[signature] = answer
            state.bytes += bytes
        }
        return answer
    }

    /// The answers remembered now, and about how many bytes they hold.
    var remembered: (count: Int, bytes: Int) { state.withLockedValue { ($0.answers.count, $0.bytes) } }
}
