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
        /// A project's part whose write failed, retried as it was and in its place (so a write PostgreSQL
        /// finished after all adds nothing the second time).
        struct Retry {
            var part: InsightsBatch
            var write: InsightsWrite
            /// Failed writes of the part that reached the database (a deadline, an error it answered), not
            /// those it was down for.
            var failures: Int
        }

        /// After this many failures that reached the database, a part is given up: the same write would fail
        /// again without end.
        static let maximumFailures = 5

        let recorder: InsightsRecorder
        let store: InsightsStore
        let logger: Logger
        /// This server's writes, numbered in the order they are sent (`InsightsWrite`).
        private let writer = UUID()
        private var sequence: Int64 = 0
        private var retrying: [String: Retry] = [:]
        /// Counts taken while their project's retry waits: never written yet, so they merge freely.
        private var waiting = InsightsBatch()
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

        /// Writes what was counted since the last flush, and what an earlier flush could not write. A project's
        /// part is written in one transaction, numbered, so none is added twice, and one project's
        /// failure costs no other project anything. A failed part is retried as it was, before anything newer of
        /// its project, and given up after `maximumFailures` failures that reached the database; its sampled
        /// instances are not kept (a sample is up to `sampleSize` contexts per project, and the database may
        /// stay away for many flushes): they are sampled again at their next fetch. Returns the first failure.
        func flush() async -> (any Error)? {
            var failure: (any Error)?
            // Project by project: what was taken from the threads is converted for one project at a time.
            var taken = recorder.take()
            for project in Set(retrying.keys).union(waiting.projects).union(taken.projects).sorted() {
                var fresh = waiting.takePart(of: project)
                // The newer counts merged last: a sample keeps an instance's newer context.
                fresh.merge(recorder.batch(of: project, from: &taken))
                if var retry = retrying.removeValue(forKey: project) {
                    do {
                        try await write(retry.part, as: retry.write)
                    } catch {
                        failure = failure ?? error
                        if Self.reachedTheDatabase(error) { retry.failures += 1 }
                        if retry.failures < Self.maximumFailures {
                            retrying[project] = retry
                            fresh.samples = [:]
                            waiting.merge(fresh)
                            continue
                        }
                        logger.error(
                            """
                            insights: gave up the \(retry.part.answers) answers of \(project) after \(retry.failures) \
                            failed writes: \(error)
                            """)
                    }
                }
                // Also with nothing new: the other servers' flushes may have lowered the sample's bound since.
                sequence += 1
                let place = InsightsWrite(writer: writer, sequence: sequence)
                do {
                    try await write(fresh, as: place)
                } catch {
                    failure = failure ?? error
                    fresh.samples = [:]
                    retrying[project] = Retry(
                        part: fresh, write: place, failures: Self.reachedTheDatabase(error) ? 1 : 0)
                    logger.warning(
                        "insights: could not write the counts of \(project), kept for the next flush: \(error)")
                }
            }
            return failure
        }

        private func write(_ part: InsightsBatch, as place: InsightsWrite) async throws {
            recorder.adopt(try await store.add(part, sampleSize: recorder.sampleSize, as: place))
        }

        /// Whether a failed write got as far as the database: anything but the database being unreachable.
        static func reachedTheDatabase(_ error: any Error) -> Bool {
            if case .unavailable = error as? StoreError { return false }
            return true
        }
    }
}
