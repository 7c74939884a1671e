import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Threads of their own for CPU-heavy work (evaluating a template at the limits, validating and compiling
/// a 1 MiB template), so it never holds the event loops or the cooperative threads that serve every other
/// connection: a `/healthz` or a plain fetch answers at once while two such requests run.
///
/// Owned by the application: made with its environment, handed to whoever needs it, and run as one of its
/// services, which stops the threads once the application shuts down (after the server and the services
/// added after this one, which may still use it).
final class HeavyWork: Service, Sendable {
    /// Work on at most this many bytes of input runs where the caller runs: queueing a usual template behind
    /// heavy fetches would make a publish (and its announcement to streams) wait for them.
    static let inlineLimit = 64 * 1024

    /// How many threads: one per two cores (at least one) by default, so heavy requests queue behind each
    /// other rather than taking every core.
    let threadCount: Int
    /// How many pieces of work were skipped because their caller went away (for tests).
    let skipped = NIOLockedValueBox(0)
    /// How many pieces of work wait for a thread (for tests, which must know a request was queued).
    let waiting = NIOLockedValueBox(0)
    private let pool: NIOThreadPool

    /// Starts the threads at once: start-up work (compiling every published template) may need them before
    /// the application's services run.
    init(threadCount: Int = max(1, System.coreCount / 2)) {
        self.threadCount = threadCount
        pool = NIOThreadPool(numberOfThreads: threadCount)
        pool.start()
    }

    /// Waits for the application's shutdown, then stops the threads once the work they hold is done.
    func run() async throws {
        try? await gracefulShutdown()
        try await pool.shutdownGracefully()
    }

    /// Runs `work` on the heavy-work threads when its input (`size` bytes) is over `inlineLimit`, else at once.
    func run<T: Sendable>(size: Int, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        size <= Self.inlineLimit ? try work() : try await run(work)
    }

    /// Runs `work` on the heavy-work threads and returns its result. When the calling task is cancelled
    /// (its client hung up) before the work started, the work is skipped (`NIOThreadPool` drops cancelled
    /// work items) and this throws `CancellationError`; work already running finishes, as each piece is
    /// bounded by the API's limits.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            try Task.checkCancellation()
            waiting.withLockedValue { $0 += 1 }
            let started = NIOLockedValueBox(false)
            defer { if !started.withLockedValue({ $0 }) { waiting.withLockedValue { $0 -= 1 } } }
            return try await pool.runIfActive { [waiting] in
                started.withLockedValue { $0 = true }
                waiting.withLockedValue { $0 -= 1 }
                return try work()
            }
        } catch let error as CancellationError {
            skipped.withLockedValue { $0 += 1 }
            throw error
        }
    }
}
