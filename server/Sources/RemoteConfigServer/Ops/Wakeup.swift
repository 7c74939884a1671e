import NIOConcurrencyHelpers

/// Ends a background worker's sleep early: work arrived (a NOTIFY from any replica, a save or an ended attempt
/// on this one). A wake-up that comes while it is not sleeping ends the next sleep at once, so none is lost.
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

/// The wake-ups of this server's background workers, one each, so that whoever learns of work (the event
/// listener, a save on this server, an attempt that ended) wakes the worker that does it.
struct Wakeups: Sendable {
    let changeRequests = Wakeup()
    let rollouts = Wakeup()
    let webhooks = Wakeup()
    let storeSync = Wakeup()
    let googlePlay = Wakeup()
    let versionPolicy = Wakeup()
    /// Nobody wakes the insights flush: it runs at its interval.
    let insights = Wakeup()

    /// Events may have been missed (the listener reconnected): every worker that NOTIFY wakes looks again.
    func all() {
        changeRequests.wake()
        rollouts.wake()
        webhooks.wake()
    }
}
