import Logging
import RemoteConfigStore

/// Publishes rollout steps when their time has come (a `Worker`). Every replica runs one; the store makes sure
/// each step is published once (under its project's row lock, only while the rollout is still running on the
/// step before), by whichever replica gets there first.
///
/// The database decides, not a timer: each round asks it for what is due and how long until the next step, by
/// its clock, which every replica shares, and sleeps until then, or until a step was planned on any replica
/// (the store's NOTIFY) or the event listener reconnected.
struct RolloutScheduler: BackgroundWork {
    let rollouts: RolloutStore
    let publishing: Publishing
    let logger: Logger

    var name: String { "rollout steps" }

    /// Publishes what is due now and tells this server's cache of each version at once.
    func round(beside: inout DiscardingTaskGroup) async throws -> Duration? {
        for done in try await rollouts.publishDue() {
            guard let version = done.version else {
                logger.warning(
                    "\(Rollout.name(done.rollout.id)) of \(done.rollout.project): a step could not be published; paused"
                )
                continue
            }
            await publishing.announce(version)
            logger.info(
                "\(Rollout.name(done.rollout.id)) of \(done.rollout.project): step \(done.rollout.currentStep + 1) published as version \(version.versionNumber)"
            )
        }
        guard let next = try await rollouts.nextDue() else { return nil }
        // Still due: another replica holds the project's lock (publishing it), or more than a round's worth.
        return next <= .zero ? .milliseconds(100) : next
    }
}
