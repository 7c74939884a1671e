import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs `operation` and gives up with `URLError(.timedOut)` once `seconds` have passed, whether or not the operation
/// notices: it is cancelled, but its answer is no longer awaited.
///
/// A fetch needs this on top of `URLRequest.timeoutInterval`, which only bounds the silence between two packets: a
/// server that accepts the connection and then trickles bytes, or a custom `HTTPTransport` with no timeout of its own,
/// would otherwise hold an app that waits for its values far longer than `fetchTimeout`. A task group would not do:
/// it waits for every child, so an operation that ignores cancellation would hold it just the same.
func withDeadline<T: Sendable>(
    seconds: TimeInterval, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    guard seconds.isFinite else { return try await operation() }
    let race = DeadlineRace<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.start(continuation, seconds: max(0, seconds), operation)
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The operation, the timer and the caller's cancellation race; the first to finish answers, the others are
/// cancelled.
// @unchecked Sendable is safe: all mutable state is inside a `Locked`.
private final class DeadlineRace<T: Sendable>: @unchecked Sendable {
    private struct State: Sendable {
        var continuation: CheckedContinuation<T, any Error>?
        var tasks: [Task<Void, Never>] = []
        var finished = false
    }

    private let state = Locked(State())

    func start(
        _ continuation: CheckedContinuation<T, any Error>, seconds: TimeInterval,
        _ operation: @escaping @Sendable () async throws -> T
    ) {
        let alreadyCancelled = state.withLock { state in
            if !state.finished { state.continuation = continuation }
            return state.finished
        }
        if alreadyCancelled {
            continuation.resume(throwing: CancellationError())
            return
        }
        let work = Task {
            do { self.finish(.success(try await operation())) } catch { self.finish(.failure(error)) }
        }
        let timer = Task {
            // Clamped so the conversion to nanoseconds cannot overflow (a year is no deadline anyway).
            let nanoseconds = UInt64(min(seconds, 365 * 24 * 60 * 60) * 1_000_000_000)
            guard (try? await Task.sleep(nanoseconds: nanoseconds)) != nil else { return }
            self.finish(.failure(URLError(.timedOut)))
        }
        let cancelNow = state.withLock { state in
            state.tasks = [work, timer]
            return state.finished
        }
        if cancelNow {
            work.cancel()
            timer.cancel()
        }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, tasks): (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) = state.withLock {
            state in
            guard !state.finished else { return (nil, []) }
            state.finished = true
            defer {
                state.continuation = nil
                state.tasks = []
            }
            return (state.continuation, state.tasks)
        }
        for task in tasks { task.cancel() }
        continuation?.resume(with: result)
    }
}
