import Logging
import RemoteConfigStore
import ServiceLifecycle

/// Publishes rollout steps when their time has come. Every replica runs one; the store makes sure each step is
/// published once (under its project's row lock, only while the rollout is still running on the step before),
/// by whichever replica gets there first.
///
/// The database decides, not a timer: each round asks it for what is due and how long until the next step, by
/// its clock, which every replica shares, and sleeps until then but never longer than `interval`; so a step
/// planned on another replica, or whose time passed while no replica ran, is published within `interval`.
struct RolloutScheduler: Service {
    let rollouts: RolloutStore
    let publishing: Publishing
    let logger: Logger
    /// The longest it sleeps without asking the database.
    let interval: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let pause = await round()
                try? await Task.sleep(for: pause)
            }
        }
    }

    /// Publishes what is due now and tells this server's cache of each version at once; returns how long to
    /// sleep before the next round.
    func round() async -> Duration {
        do {
            for done in try await rollouts.publishDue() {
                guard let version = done.version else {
                    logger.warning(
                        "\(Rollout.name(done.rollout.id)) of \(done.rollout.project): a step could not be published; paused"
                    )
                    continue
                }
                _ = try await publishing.run { version }
                logger.info(
                    "\(Rollout.name(done.rollout.id)) of \(done.rollout.project): step \(done.rollout.currentStep + 1) published as version \(version.versionNumber)"
                )
            }
            guard let next = try await rollouts.nextDue() else { return interval }
            // Still due: another replica holds the project's lock (publishing it), or more than a round's worth.
            return next <= .zero ? .milliseconds(100) : min(next, interval)
        } catch let error as StoreError {
            logger.debug("rollout steps: \(error)")
            return .milliseconds(250)
        } catch {
            logger.warning("rollout steps: \(String(reflecting: error))")
            return .milliseconds(250)
        }
    }
}
