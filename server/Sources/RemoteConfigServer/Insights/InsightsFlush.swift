import Foundation
import Logging
import RemoteConfigStore

/// Adds this server's counts to the database every flush interval and once more at a graceful stop (after the
/// server stopped answering), and now and then rolls up and deletes old rows (whichever server gets there
/// first; also with insights off). A `Worker`'s work; `AppEnvironment.flushInsights` runs the same flush at once.
struct InsightsFlush: BackgroundWork {
    let recorder: InsightsRecorder
    let store: InsightsStore
    let retentionDays: Int
    let logger: Logger
    /// Maintenance runs at most this often per server.
    var maintenanceInterval: Duration = .seconds(600)
    /// What was counted and not written yet; one flush at a time.
    let writer: Writer

    init(recorder: InsightsRecorder, store: InsightsStore, retentionDays: Int, logger: Logger) {
        self.recorder = recorder
        self.store = store
        self.retentionDays = retentionDays
        self.logger = logger
        self.writer = Writer(recorder: recorder, store: store, logger: logger)
    }

    var name: String { "insights" }

    /// Begins each project's sample where the stored one stands, read off the event loops while the server
    /// already answers: after a deploy, the loops' samples do not take their first `sampleSize` new instances
    /// each again. Failing, samples begin empty and learn the bound at the first flush.
    func start() async {
        guard recorder.enabled, recorder.sampleSize > 0 else { return }
        do {
            recorder.adopt(try await store.sampleBounds(keep: recorder.sampleSize))
        } catch {
            logger.warning("insights: could not read the stored samples' bounds, samples begin empty: \(error)")
        }
    }

    /// A flush, then maintenance when it is due. The first round comes at once and finds nothing to write.
    func round(beside: inout DiscardingTaskGroup) async throws -> Duration? {
        if recorder.enabled { _ = await writer.flush() }
        if await writer.maintenanceDue(every: maintenanceInterval) {
            do {
                // Also with insights off: what was stored before still expires.
                try await store.maintain(retentionDays: retentionDays)
            } catch {
                logger.warning("insights: retention and roll-up failed, retried later: \(error)")
            }
        }
        return nil
    }

    /// The last flush: what was counted since the previous one.
    func stop() async {
        if recorder.enabled { _ = await writer.flush() }
    }

    /// The counts an earlier flush could not write, and the flush itself, one at a time.
    actor Writer {
        let recorder: InsightsRecorder
        let store: InsightsStore
        let logger: Logger
        private var pending = InsightsBatch()
        private var lastMaintenance: ContinuousClock.Instant?

        init(recorder: InsightsRecorder, store: InsightsStore, logger: Logger) {
            self.recorder = recorder
            self.store = store
            self.logger = logger
        }

        /// Whether maintenance is due (the first time: at the round after the first, so start-up stays light),
        /// and if so, counts it as done now.
        func maintenanceDue(every interval: Duration) -> Bool {
            guard let last = lastMaintenance else {
                lastMaintenance = .now - interval
                return false
            }
            guard ContinuousClock.now - last >= interval else { return false }
            lastMaintenance = .now
            return true
        }

        /// Writes what was counted since the last flush, and whatever an earlier flush could not write. A
        /// project's counts are written in one transaction, so none is written twice; a project whose write
        /// fails keeps its counts for the next flush (not its sampled instances). Returns the first failure.
        func flush() async -> (any Error)? {
            var failure: (any Error)?
            // Project by project: what was taken from the threads is converted for one project at a time.
            var taken = recorder.take()
            for project in pending.projects.union(taken.projects).sorted() {
                var part = InsightsBatch()
                part.counts = pending.counts.filter { $0.key.project == project }
                part.samples[project] = pending.samples[project]
                for key in part.counts.keys { pending.counts[key] = nil }
                pending.samples[project] = nil
                // The newer counts merged last: a sample keeps an instance's newer context.
                part.merge(recorder.batch(of: project, from: &taken))
                do {
                    recorder.adopt(try await store.add(part, sampleSize: recorder.sampleSize))
                } catch {
                    // The counts wait for the next flush; the sampled instances do not (a sample is up to
                    // `sampleSize` contexts per project, and the database may stay away for many flushes): they
                    // are sampled again at their next fetch.
                    part.samples = [:]
                    pending.merge(part)
                    failure = failure ?? error
                    logger.warning(
                        "insights: could not write the counts of \(project), kept for the next flush: \(error)")
                }
            }
            return failure
        }
    }
}
