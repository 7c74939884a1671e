import Logging
import RemoteConfigStore
import ServiceLifecycle

/// What one kind of background work does each round; `Worker` runs it. Every replica runs every worker: work
/// that exactly one replica must do is claimed in the database, inside the round.
protocol BackgroundWork: Sendable {
    /// How its log lines begin (`scheduled publishes`).
    var name: String { get }
    /// Once, before the first round.
    func start() async
    /// Does what is due now; work that may take long (a webhook attempt, a store sync) goes into `beside`, so
    /// the next round need not wait for it. Returns when the next round is wanted: nil for the worker's
    /// interval, and never later than it.
    func round(beside: inout DiscardingTaskGroup) async throws -> Duration?
    /// Once, at a graceful stop, after the last round (and after the server stopped answering).
    func stop() async
}

extension BackgroundWork {
    func start() async {}
    func stop() async {}
}

/// The one shape of background worker: a round, then a sleep until the round's next time, a wake-up (a
/// NOTIFY, a save on this server) or at most `interval` (the safety net), whichever comes first. A round that
/// fails is retried after a back-off that doubles from a quarter of a second up to `interval`, so a database
/// that stays away is not asked four times a second for as long.
struct Worker<Work: BackgroundWork>: Service {
    let work: Work
    /// The longest it sleeps without looking for work.
    let interval: Duration
    let wakeup: Wakeup
    let logger: Logger

    /// The pause after `failures` rounds in a row failed.
    static func backOff(failures: Int, interval: Duration) -> Duration {
        let doubled = Duration.milliseconds(250) * (1 << min(failures - 1, 20))
        return min(doubled, max(interval, .milliseconds(250)))
    }

    func run() async throws {
        await work.start()
        // At a graceful stop the loop ends (work beside it is cancelled: a claim's lease runs out and another
        // replica, or this one after its restart, does it), then `stop` runs.
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { beside in
                var failures = 0
                while !Task.isCancelled {
                    let pause: Duration
                    do {
                        let next = try await work.round(beside: &beside)
                        failures = 0
                        pause = min(max(next ?? interval, .zero), interval)
                    } catch {
                        failures += 1
                        pause = Self.backOff(failures: failures, interval: interval)
                        // The database away or slow is expected now and then; anything else is worth a look.
                        if error is StoreError {
                            logger.debug("\(work.name): \(error); again in \(pause)")
                        } else {
                            logger.warning("\(work.name): \(String(reflecting: error)); again in \(pause)")
                        }
                    }
                    await wakeup.wait(upTo: pause)
                }
                beside.cancelAll()
            }
        }
        await work.stop()
    }
}
