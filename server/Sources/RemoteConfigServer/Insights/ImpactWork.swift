import NIOConcurrencyHelpers
import RemoteConfigCore
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where impact estimates run. An estimate reads up to the whole impact sample (10,000 contexts, each
/// answered twice), so it gets threads of its own: it never waits behind, or delays, a fetch evaluated at the
/// limits or a publish's compile, which share `HeavyWork`. At most `perCaller` estimates of one caller and
/// `capacity` in all run or wait at once (more is 429), so one viewer's queue cannot starve anyone else; and an
/// estimate whose caller went away stops at its next check instead of running to the end. Its thread takes a
/// core only when the event loops leave it idle (`yieldToTheEventLoops`), so on a busy machine fetches get the
/// cores first and an estimate takes longer instead: on 2 cores, four estimates at once cut a new device's
/// fetches to 0.57× their rate at the normal priority.
final class ImpactWork: Service, Sendable {
    /// The nice value of the estimates' thread where idle scheduling is refused: the scheduler then gives it
    /// about a tenth of what a thread at 0 gets when both want a core.
    static let niceness: Int32 = 10
    /// Linux's `SCHED_IDLE` (`<sched.h>`, which Glibc's module does not import): the thread runs only on a core
    /// nothing else wants, and yields at once when a thread at a normal policy wakes.
    static let idlePolicy: Int32 = 5

    /// Estimates running or waiting on one server.
    static let capacity = 4
    /// Estimates running or waiting for one caller (a key or a person).
    static let perCaller = 2

    private let threads: HeavyWork
    /// Estimates admitted, by caller.
    private let admitted = NIOLockedValueBox<[String: Int]>([:])
    /// How many estimates stopped because their caller went away (for tests).
    let abandoned = NIOLockedValueBox(0)

    /// One thread: estimates queue behind each other rather than take a core from the fetch path.
    init(threadCount: Int = 1) {
        threads = HeavyWork(threadCount: threadCount)
    }

    /// Stops the threads with the application.
    func run() async throws {
        try await threads.run()
    }

    /// How many estimates are on the thread now (for tests).
    let running = NIOLockedValueBox(0)

    /// Runs `body` (a whole impact call: reading the sample, then `estimate`) for `caller`; 429 at once, before
    /// anything is read, when the caller or the server has as many estimates running or waiting as it may.
    func admitted<T: Sendable>(caller: String, _ body: () async throws -> T) async throws -> T {
        try admit(caller)
        defer { release(caller) }
        return try await body()
    }

    /// Runs `work` (which asks its `stop` now and then) on the estimates' thread; `CancellationError` when the
    /// caller went away meanwhile: its task was cancelled, or `callerGone` says so (a closed connection, which
    /// does not cancel a routed request's task).
    func estimate(
        callerGone: @escaping @Sendable () -> Bool,
        _ work: @escaping @Sendable (_ stop: () -> Bool) -> ImpactReport?
    ) async throws -> ImpactReport {
        let stopped = NIOLockedValueBox(false)
        let report = try await withTaskCancellationHandler {
            try await threads.run { [running] in
                Self.yieldToTheEventLoops()
                running.withLockedValue { $0 += 1 }
                defer { running.withLockedValue { $0 -= 1 } }
                return work { stopped.withLockedValue { $0 } || callerGone() }
            }
        } onCancel: {
            stopped.withLockedValue { $0 = true }
        }
        guard let report else {
            abandoned.withLockedValue { $0 += 1 }
            throw CancellationError()
        }
        return report
    }

    /// Puts the calling thread below the event loops (the estimates' thread is theirs alone, so once is enough,
    /// and again is a cheap no-op): on Linux the idle policy, else `niceness`, each the thread's own (POSIX says a
    /// process; NPTL makes both per thread); on macOS the thread's quality of service.
    static func yieldToTheEventLoops() {
        #if os(Linux)
            var parameters = sched_param()
            if sched_setscheduler(0, idlePolicy, &parameters) != 0 {
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
            }
        #elseif canImport(Darwin)
            _ = pthread_set_qos_class_self_np(QOS_CLASS_BACKGROUND, 0)
        #endif
    }

    private func admit(_ caller: String) throws {
        let refusal: String? = admitted.withLockedValue { admitted in
            if admitted[caller, default: 0] >= Self.perCaller {
                return "this caller has \(Self.perCaller) impact estimates running or waiting already"
            }
            if admitted.values.reduce(0, +) >= Self.capacity {
                return "the server is running \(Self.capacity) impact estimates already"
            }
            admitted[caller, default: 0] += 1
            return nil
        }
        if let refusal {
            throw APIError(
                .tooManyRequests, "\(refusal); retry in a few seconds", headers: [.retryAfter: "2"])
        }
    }

    private func release(_ caller: String) {
        admitted.withLockedValue { admitted in
            admitted[caller, default: 1] -= 1
            if admitted[caller] == 0 { admitted[caller] = nil }
        }
    }
}
