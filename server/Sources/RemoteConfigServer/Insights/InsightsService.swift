import Foundation
import Logging
import RemoteConfigStore
import ServiceLifecycle

/// Adds this server's counts to the database every `interval` and once more at a graceful stop (after the
/// server stopped answering), and now and then rolls up and deletes old rows (whichever server gets there
/// first; also with insights off). A flush that fails keeps its counts for the next one (not its sampled
/// instances); a project's counts are written in one transaction, so none is written twice.
struct InsightsService: Service {
    let recorder: InsightsRecorder
    let store: InsightsStore
    let interval: Duration
    let retentionDays: Int
    let logger: Logger
    /// Maintenance runs at most this often per server.
    var maintenanceInterval: Duration = .seconds(600)

    func run() async throws {
        var pending = InsightsBatch()
        var lastMaintenance = ContinuousClock.now - maintenanceInterval + interval
        if recorder.enabled { await adoptStoredBounds() }
        while true {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            let stopping = Task.isShuttingDownGracefully || Task.isCancelled
            if recorder.enabled { await flush(&pending) }
            if stopping { return }
            // Also with insights off: what was stored before still expires.
            if ContinuousClock.now - lastMaintenance >= maintenanceInterval {
                lastMaintenance = ContinuousClock.now
                do {
                    try await store.maintain(retentionDays: retentionDays)
                } catch {
                    logger.warning("insights: retention and roll-up failed, retried later: \(error)")
                }
            }
        }
    }

    /// Begins each project's sample where the stored one stands, read off the event loops while the server
    /// already answers: after a deploy, the loops' samples do not take their first `sampleSize` new instances
    /// each again. Failing, samples begin empty and learn the bound at the first flush.
    func adoptStoredBounds() async {
        guard recorder.sampleSize > 0 else { return }
        do {
            recorder.adopt(try await store.sampleBounds(keep: recorder.sampleSize))
        } catch {
            logger.warning("insights: could not read the stored samples' bounds, samples begin empty: \(error)")
        }
    }

    /// Writes what was counted since the last flush, and whatever an earlier flush could not write.
    func flush(_ pending: inout InsightsBatch) async {
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
                logger.warning("insights: could not write the counts of \(project), kept for the next flush: \(error)")
            }
        }
    }

}
