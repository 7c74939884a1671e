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
/// project, so 200 such projects held gigabytes. Every template's answers share one `ByteBudget`; when it
/// is spent, the template that needs room forgets its own answers one at a time until the new one fits, so
/// busy templates keep what they use and memory stays within the budget.
final class AnswersBySignature<Answer: Sendable>: Sendable {
    /// At most this many signatures per template, whatever the budget.
    static var capacity: Int { 10_000 }

    let compiled: CompiledTemplate
    let budget: ByteBudget
    private let build: @Sendable (MatchSignature) -> Answer
    private let hold: @Sendable (Answer) -> Int
    private let release: @Sendable (Answer) -> Int
    private struct State {
        /// Each answer with its signature's place in `signatures`.
        var answers: [MatchSignature: (answer: Answer, slot: Int)] = [:]
        /// The remembered signatures, to pick one to forget at random in constant time.
        var signatures: [MatchSignature] = []
        var bytes = 0
        /// A splitmix64 sequence: which answer goes needs no more than a cheap, well-spread number.
        var picks: UInt64 = 0x9E37_79B9_7F4A_7C15

        mutating func nextPick(below count: Int) -> Int {
            picks &+= 0x9E37_79B9_7F4A_7C15
            var z = picks
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(count))
        }

        mutating func remember(_ answer: Answer, for signature: MatchSignature, bytes: Int) {
            answers[signature] = (answer, signatures.count)
            signatures.append(signature)
            self.bytes += bytes
        }

        /// Forgets an answer picked at random and says how many bytes that frees.
        mutating func forgetOne(release: (Answer) -> Int) -> Int {
            let slot = nextPick(below: signatures.count)
            let signature = signatures[slot]
            let last = signatures.removeLast()
            if slot < signatures.count {
                signatures[slot] = last
                answers[last]?.slot = slot
            }
            let forgotten = answers.removeValue(forKey: signature)
            let weight = forgotten.map { release($0.answer) } ?? 0
            bytes -= weight
            return weight
        }
    }
    private let state = NIOLockedValueBox(State())

    /// `build` makes the answer of a signature the first time it is asked for; `weigh` says about how many
    /// bytes it holds, counted against `budget`.
    convenience init(
        _ compiled: CompiledTemplate, budget: ByteBudget = .answers, weigh: @escaping @Sendable (Answer) -> Int,
        build: @escaping @Sendable (MatchSignature) -> Answer
    ) {
        self.init(compiled, budget: budget, hold: weigh, release: weigh, build: build)
    }

    /// As `init(_:budget:weigh:build:)`, for answers that may share bytes: `hold` says how many bytes an answer
    /// adds when it is remembered, `release` how many it frees when forgotten (what it shares counts once,
    /// with whichever answer holds it first and frees it last).
    init(
        _ compiled: CompiledTemplate, budget: ByteBudget, hold: @escaping @Sendable (Answer) -> Int,
        release: @escaping @Sendable (Answer) -> Int, build: @escaping @Sendable (MatchSignature) -> Answer
    ) {
        self.compiled = compiled
        self.budget = budget
        self.build = build
        self.hold = hold
        self.release = release
    }

    deinit {
        budget.release(state.withLockedValue { $0.bytes })
    }

    /// The answer for `context`.
    func answer(for context: FetchContext) -> Answer {
        let signature = compiled.signature(for: context)
        if let answer = state.withLockedValue({ $0.answers[signature]?.answer }) { return answer }
        let answer = build(signature)
        let budget = self.budget
        let release = self.release
        state.withLockedValue { state in
            // Another event loop may have made the same answer meanwhile: it is remembered once.
            guard state.answers[signature] == nil else { return }
            // At the limit one answer goes, picked at random, not all: forgetting every answer at once would
            // make each caller after it rebuild its answer, where a random pick leaves most of them in place
            // and a signature many callers have is soon back.
            while state.answers.count >= Self.capacity { budget.release(state.forgetOne(release: release)) }
            let bytes = hold(answer)
            while !budget.reserve(bytes) {
                // Other templates may hold the whole budget: then this answer is not remembered.
                guard !state.answers.isEmpty else {
                    _ = release(answer)
                    return
                }
                budget.release(state.forgetOne(release: release))
            }
            state.remember(answer, for: signature, bytes: bytes)
        }
        return answer
    }

    /// The answers remembered now, and about how many bytes they hold.
    var remembered: (count: Int, bytes: Int) { state.withLockedValue { ($0.answers.count, $0.bytes) } }
}
