import Logging
import NIOConcurrencyHelpers
import RemoteConfigStore
import ServiceLifecycle

/// Publishes scheduled change requests when their time has come. Every replica runs one; the store makes
/// sure each request is published once (under its project's row lock, only while still `SCHEDULED`), by
/// whichever replica gets there first.
///
/// The database decides, not a timer: each round asks it for what is due and how long until the next one,
/// by its clock, which every replica shares. Between rounds the scheduler sleeps until that next time, or
/// until told that a request was scheduled (the store's NOTIFY, on any replica) or that the event listener
/// reconnected, and at most `interval` (a safety net). So a request whose time passed while no replica ran
/// is published as soon as one starts.
struct ChangeRequestScheduler: Service {
    let changeRequests: ChangeRequestStore
    let publishing: Publishing
    let logger: Logger
    /// The longest it sleeps without asking the database.
    let interval: Duration
    let wakeup: Wakeup

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let pause = await round()
                await wakeup.wait(upTo: pause)
            }
        }
    }

    /// Publishes what is due now, and tells this server's cache of each version at once; returns how long
    /// to sleep before the next round.
    func round() async -> Duration {
        do {
            for done in try await changeRequests.publishDue() {
                _ = try await publishing.run { done.version }
                logger.info(
                    "published scheduled \(ChangeRequest.name(done.request.id)) of \(done.request.project) as version \(done.version.versionNumber)"
                )
            }
            guard let next = try await changeRequests.nextDue() else { return interval }
            // Still due: another replica holds the project's lock (publishing it), or more than a round's worth.
            return next <= .zero ? .milliseconds(100) : min(next, interval)
        } catch let error as StoreError {
            // The database is away or slow: try again soon.
            logger.debug("scheduled publishes: \(error)")
            return .milliseconds(250)
        } catch {
            logger.warning("scheduled publishes: \(String(reflecting: error))")
            return .milliseconds(250)
        }
    }

    /// Ends a scheduler's sleep early. A wake-up that comes while it is not sleeping ends the next sleep at
    /// once, so none is lost.
    final class Wakeup: Sendable {
        private struct State {
            var pending = false
            var sleeper: CheckedContinuation<Void, Never>?
        }
        private let state = NIOLockedValueBox(State())

        init() {}

        /// Wakes the sleeper, or the next one.
        func wake() {
            let sleeper = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
                guard let sleeper = state.sleeper else {
                    state.pending = true
                    return nil
                }
                state.sleeper = nil
                return sleeper
            }
            sleeper?.resume()
        }

        /// Returns after `limit`, at a wake-up, or when the task is cancelled, whichever comes first.
        func wait(upTo limit: Duration) async {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await Task.sleep(for: limit) }
                group.addTask { await self.next() }
                await group.next()
                group.cancelAll()
                self.wake()  // ends `next` if the sleep finished first; the flag it leaves is cleared below
                await group.waitForAll()
                self.state.withLockedValue { $0.pending = false }
            }
        }

        private func next() async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLockedValue { state -> Bool in
                        if state.pending {
                            state.pending = false
                            return true
                        }
                        state.sleeper = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                self.wake()
            }
        }
    }
}
