import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import RemoteConfigCore
import ServiceLifecycle

/// The shared PostgreSQL pool, with the deadline and error mapping every store call goes through.
///
/// It is a `Service`: it runs the pool, and replaces it with a fresh one when the database is back after an
/// outage. PostgresNIO's pool backs off up to a minute between reconnection attempts; a fresh pool connects at
/// once, so the server recovers within the listener's retry interval instead of the pool's backoff.
public final class Database: Service, Sendable {
    public let url: DatabaseURL
    let logger: Logger
    /// How long a store call may wait before the database counts as unavailable.
    let deadline: Duration
    /// How long the probe that tells a slow call from an unreachable database may take to connect and answer.
    let probeTimeout: Duration
    let maximumConnections: Int

    private struct State {
        var client: PostgresClient
        var runner: Task<Void, Never>?
        /// Replaced pools finishing the work they had; stopped at shutdown at the latest.
        var retiring: [UInt64: Task<Void, Never>] = [:]
        var nextRetiring: UInt64 = 0
        /// Set when a call found the database unavailable or ran out of time; cleared by the next call that
        /// succeeds.
        var failing = false
        var stopped = false
        /// When the call through the pool that succeeded last started and ended.
        var lastAnswer: Evidence?
        /// The direct-connection probe running now, which every call timing out meanwhile waits for.
        var probe: Task<Bool, Never>?
        /// The outcome of the last probe, reused for `probeInterval` so a burst of timeouts opens one connection.
        var lastProbe: (evidence: Evidence, reachable: Bool)?
        /// How many probes ran, for tests of the rate limit.
        var probesRun = 0
        /// When something last found the database unreachable (a refused or lost connection, a failed
        /// probe or ping, the event listener's connection): a call that ran out of time after that moment
        /// waited on an outage, not on a slow database.
        var lastUnreachable: ContinuousClock.Instant?
    }

    /// How long evidence that the database answers (a call that succeeded, a probe) counts as current.
    static let probeInterval: Duration = .seconds(1)

    /// When an answer from the database (or its absence) was asked for and got.
    private struct Evidence {
        var start: ContinuousClock.Instant
        var end: ContinuousClock.Instant

        /// Whether it tells about the database as it is now, for a call that began at `callStart`: gathered
        /// while that call waited (so not before an outage the call ran into) and within `probeInterval`.
        func counts(since callStart: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Bool {
            start >= callStart && now - end < Database.probeInterval
        }
    }

    private let state: NIOLockedValueBox<State>

    /// Creates the pool; it connects once `run()` runs (the application adds the database as a service).
    ///
    /// `probeTimeout` defaults to `deadline` (at least 2 s): a loaded machine starts a backend slowly, and
    /// only a database that takes connections but never answers makes a caller wait for it; a refused
    /// connection fails at once.
    public init(
        url: DatabaseURL, logger: Logger, deadline: Duration = .seconds(5), maximumConnections: Int = 20,
        probeTimeout: Duration? = nil
    ) {
        self.url = url
        self.logger = logger
        self.deadline = deadline
        self.probeTimeout = probeTimeout ?? max(deadline, .seconds(2))
        self.maximumConnections = maximumConnections
        self.state = NIOLockedValueBox(State(client: Self.makeClient(url, logger, maximumConnections)))
    }

    private static func makeClient(_ url: DatabaseURL, _ logger: Logger, _ maximumConnections: Int) -> PostgresClient {
        var configuration = url.clientConfiguration()
        configuration.options.maximumConnections = maximumConnections
        return PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    /// The current pool.
    public var client: PostgresClient { state.withLockedValue { $0.client } }

    /// Runs the pool until shutdown.
    public func run() async throws {
        state.withLockedValue { state in
            let client = state.client
            state.runner = Task { await client.run() }
        }
        try? await gracefulShutdown()
        let (runner, retiring) = state.withLockedValue { state in
            state.stopped = true
            return (state.runner, Array(state.retiring.values))
        }
        runner?.cancel()
        for task in retiring { task.cancel() }
        // The pool finishes once its connections are back; a lease lost to a cancelled request must not
        // keep shutdown waiting for ever, so wait a bounded time.
        if let runner {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await runner.value }
                group.addTask { try? await Task.sleep(for: .seconds(3)) }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// After the database was unavailable and is reachable again (a direct connection just worked), makes
    /// sure requests succeed at once: when the pool does not answer within `probe` (it is waiting out its
    /// reconnection backoff), a fresh pool takes over.
    ///
    /// A pool that answers is kept: replacing it would fail the requests it is serving. The replaced pool
    /// is stopped only after `deadline`, so work it still has ends on its own instead of being cut off.
    public func recoverIfFailing(probe: Duration = .milliseconds(250)) async {
        guard state.withLockedValue({ $0.failing && !$0.stopped && $0.runner != nil }) else { return }
        if await ping(within: probe) { return }
        let retired = state.withLockedValue { state -> (UInt64, Task<Void, Never>)? in
            guard state.failing, !state.stopped, let previous = state.runner else { return nil }
            let client = Self.makeClient(url, logger, maximumConnections)
            state.client = client
            state.runner = Task { await client.run() }
            state.failing = false
            state.nextRetiring += 1
            state.retiring[state.nextRetiring] = previous
            return (state.nextRetiring, previous)
        }
        guard let (id, previous) = retired else { return }
        logger.notice("database reachable again: the connection pool did not answer, so a new one took over")
        let deadline = self.deadline
        Task { [state] in
            try? await Task.sleep(for: deadline)
            previous.cancel()
            await previous.value
            _ = state.withLockedValue { $0.retiring.removeValue(forKey: id) }
        }
    }

    /// Runs `body` with the pool. When it does not answer within the deadline, fails with
    /// `StoreError.timedOut` if the database answers otherwise, else with `StoreError.unavailable`.
    public func run<T: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T {
        let client = self.client
        let start = ContinuousClock.now
        do {
            let result = try await withDeadline(deadline) { try await body(client) }
            markAnswered(since: start)
            return result
        } catch {
            var mapped = StoreError.map(error)
            if case StoreError.timedOut(let limit) = mapped {
                if let last = state.withLockedValue({ $0.lastUnreachable }), last >= start {
                    mapped = StoreError.unavailable("no answer within \(limit); the database was unreachable meanwhile")
                } else if await !isReachable(since: start) {
                    mapped = StoreError.unavailable("no answer within \(limit), nor to a direct connection")
                }
            }
            if case StoreError.unavailable = mapped { noteUnreachable() }
            switch mapped {
            case StoreError.unavailable, StoreError.timedOut:
                // Either way the pool may be stuck (waiting out its reconnection backoff): let the next
                // recovery check ping it, and replace it only if it does not answer.
                state.withLockedValue { $0.failing = true }
            default: break
            }
            throw mapped
        }
    }

    /// Whether the database answers now, for a call that began at `callStart` and ran out of time: another
    /// call through the pool that began later and just succeeded says so; otherwise one direct connection
    /// asked `SELECT 1`, whose answer the timeouts of the next `probeInterval` share.
    func isReachable(since callStart: ContinuousClock.Instant) async -> Bool {
        let now = ContinuousClock.now
        let limit = probeTimeout
        let (url, logger) = (self.url, self.logger)
        let known = state.withLockedValue { state -> Bool? in
            if let last = state.lastAnswer, last.counts(since: callStart, now: now) { return true }
            if let last = state.lastProbe, last.evidence.counts(since: callStart, now: now) { return last.reachable }
            return nil
        }
        if let known { return known }
        let box = self.state
        let probe = box.withLockedValue { state -> Task<Bool, Never> in
            if let running = state.probe { return running }
            state.probesRun += 1
            let task = Task {
                let start = ContinuousClock.now
                let reachable = await Self.probe(url, logger: logger, within: limit)
                box.withLockedValue { state in
                    state.lastProbe = (Evidence(start: start, end: .now), reachable)
                    state.probe = nil
                    if !reachable { state.lastUnreachable = .now }
                }
                return reachable
            }
            state.probe = task
            return task
        }
        return await probe.value
    }

    /// How many direct-connection probes ran.
    var probesRun: Int { state.withLockedValue { $0.probesRun } }

    /// Whether a new connection to the database answers `SELECT 1` within `limit`; the connection is closed
    /// whatever happens, also when it completes after `limit`.
    static func probe(_ url: DatabaseURL, logger: Logger, within limit: Duration) async -> Bool {
        let attempt = Task { () -> Bool in
            // The driver's connect timeout does not cover the start-up exchange: `withDeadline` below bounds
            // the wait for a server that accepts but never answers.
            guard let connection = try? await connectOnce(url, logger: logger, timeout: limit) else { return false }
            defer { Task { try? await connection.close() } }
            do {
                for try await _ in try await connection.query("SELECT 1", logger: logger) {}
                return true
            } catch {
                return false
            }
        }
        let answered = try? await withDeadline(limit) { await attempt.value }
        if answered == nil { attempt.cancel() }
        return answered ?? false
    }

    /// Runs `body` in one transaction.
    public func transaction<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let logger = self.logger
        return try await run { client in
            try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }

    /// Records that the database was found unreachable now (see `State.lastUnreachable`).
    func noteUnreachable() {
        state.withLockedValue { $0.lastUnreachable = .now }
    }

    /// Whether the database answers a trivial query within `limit`.
    public func ping(within limit: Duration = .seconds(1)) async -> Bool {
        let client = self.client
        let start = ContinuousClock.now
        let answered = try? await withDeadline(limit) {
            for try await _ in try await client.query("SELECT 1") {}
            return true
        }
        if answered == nil {
            state.withLockedValue { $0.failing = true }
            noteUnreachable()
        } else {
            markAnswered(since: start)
        }
        return answered ?? false
    }

    /// The pool answered: it is not failing (whatever an earlier call found).
    private func markAnswered(since start: ContinuousClock.Instant) {
        let now = ContinuousClock.now
        state.withLockedValue { state in
            if state.failing { state.failing = false }
            state.lastAnswer = Evidence(start: start, end: now)
        }
    }
}

/// Runs `body`, or throws `StoreError.timedOut` when `limit` passes first.
///
/// The caller is answered at the deadline even if `body` does not react to cancellation (a lease waiting on a
/// pool that is being replaced): `body` is cancelled and left to finish on its own.
func withDeadline<T: Sendable>(
    _ limit: Duration, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = NIOLockedValueBox<CheckedContinuation<T, any Error>?>(nil)
    let resume: @Sendable (Result<T, any Error>) -> Bool = { result in
        guard
            let continuation = outcome.withLockedValue({ value -> CheckedContinuation<T, any Error>? in
                defer { value = nil }
                return value
            })
        else { return false }
        continuation.resume(with: result)
        return true
    }
    let work = NIOLockedValueBox<Task<Void, Never>?>(nil)
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            outcome.withLockedValue { $0 = continuation }
            let task = Task {
                do {
                    _ = resume(.success(try await body()))
                } catch {
                    _ = resume(.failure(error))
                }
            }
            work.withLockedValue { $0 = task }
            Task {
                try? await Task.sleep(for: limit)
                if resume(.failure(StoreError.timedOut(after: limit))) { task.cancel() }
            }
        }
    } onCancel: {
        work.withLockedValue { $0 }?.cancel()
        _ = resume(.failure(CancellationError()))
    }
}

/// Opens one standalone connection (start-up checks, migrations), failing clearly when unreachable.
public func connectOnce(_ url: DatabaseURL, logger: Logger, timeout: Duration = .seconds(10)) async throws
    -> PostgresConnection
{
    var configuration = try url.connectionConfiguration()
    // The driver's own timeout, not `withDeadline`: a connection that completes after a deadline fired
    // would be dropped unclosed.
    configuration.options.connectTimeout = .nanoseconds(timeout.inNanoseconds)
    do {
        return try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
    } catch {
        throw StoreError.map(error)
    }
}

extension PostgresClient {
    /// Runs a statement and reads its result to the end, so the connection goes back to the pool at once.
    func execute(_ query: PostgresQuery) async throws {
        for try await _ in try await self.query(query) {}
    }
}
