import NIOConcurrencyHelpers
import RemoteConfigCore

/// The answers of one published template by `MatchSignature`, built once per signature, within a memory
/// budget shared by every template of the process (`AnswerBudget`).
///
/// Callers with the same signature get the same bytes, so a fetch is an evaluation of the conditions and a
/// lookup. But a template whose percent conditions split its fleet finely has thousands of signatures, each
/// answer a few kilobytes, and a server holds one template per project: without a shared bound, 200 such
/// projects held gigabytes. When the budget is spent, the template that needs room forgets its own answers
/// and starts again, so busy templates keep what they use and memory stays within the budget plus one
/// answer per template.
final class AnswerCache<Answer: Sendable>: Sendable {
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
    /// bytes it holds.
    init(
        _ compiled: CompiledTemplate, budget: AnswerBudget = .shared,
        build: @escaping @Sendable (MatchSignature) -> Answer, weigh: @escaping @Sendable (Answer) -> Int
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

    /// The answers remembered now, and about how many bytes they hold (for tests).
    var remembered: (count: Int, bytes: Int) { state.withLockedValue { ($0.answers.count, $0.bytes) } }
}
