import Foundation
import NIOConcurrencyHelpers
import NIOCore
import RemoteConfigCore

/// The remembered answers of one published template for one kind of client call (a fetch, an OFREP
/// evaluation): by `MatchSignature`, and by the exact bytes of a request body.
///
/// An answer depends only on which of the template's conditions select the caller, so every caller with
/// the same signature gets the same bytes: those are built once, and a call is an evaluation of the
/// conditions and a lookup. An app also sends the same body on every launch and foreground: remembered by
/// its bytes, such a call skips the JSON and the evaluation too. The answer depends on nothing else but the
/// clock, which only `dateTime` conditions read, so a body's entry lasts until the template's next time
/// boundary.
final class AnswerMemo<Answer: Sendable>: Sendable {
    /// At most this many signatures are remembered; a template whose callers differ more than that starts
    /// again rather than growing without bound.
    static var capacity: Int { 10_000 }
    /// At most this many request bodies are remembered.
    static var bodyCapacity: Int { 4_096 }
    /// Bodies longer than this are not remembered (the memory would outweigh the saving).
    static var bodyLimit: Int { 2_048 }

    let compiled: CompiledTemplate
    private let build: @Sendable (MatchSignature) -> Answer
    private let answers = NIOLockedValueBox<[MatchSignature: Answer]>([:])
    private let byBody = NIOLockedValueBox<[ByteBuffer: (answer: Answer, caller: InsightCaller, validUntil: Double)]>(
        [:])

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

    /// The answer for a request body seen before (and valid then), if its entry is still current at `now`.
    func rememberedAnswer(body: ByteBuffer, now: Date) -> Answer? { rememberedCall(body: body, now: now)?.answer }

    /// The answer and the caller (for insights) of a request body seen before, as `rememberedAnswer`.
    func rememberedCall(body: ByteBuffer, now: Date) -> (answer: Answer, caller: InsightCaller)? {
        guard body.readableBytes <= Self.bodyLimit, let entry = byBody.withLockedValue({ $0[body] }) else {
            return nil
        }
        return now.timeIntervalSince1970 < entry.validUntil ? (entry.answer, entry.caller) : nil
    }

    /// Remembers `answer` for a valid request `body` evaluated at `now`.
    func remember(body: ByteBuffer, answer: Answer, now: Date) {
        remember(body: body, answer: answer, caller: InsightCaller(FetchContext(now: now), counting: false), now: now)
    }

    /// Remembers `answer` and its `caller` for a valid request `body` evaluated at `now`.
    func remember(body: ByteBuffer, answer: Answer, caller: InsightCaller, now: Date) {
        guard body.readableBytes <= Self.bodyLimit else { return }
        let validUntil =
            compiled.inputs.timeBoundaries.first { $0 > now }?.timeIntervalSince1970 ?? .infinity
        // A copy: the request's bytes are a slice of the connection's buffer, which must not be kept alive.
        let key = ByteBuffer(bytes: body.readableBytesView)
        byBody.withLockedValue { entries in
            if entries.count >= Self.bodyCapacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = (answer, caller, validUntil)
        }
    }
}
