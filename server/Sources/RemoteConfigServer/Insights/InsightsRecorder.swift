import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import RemoteConfigCore
import RemoteConfigStore

/// Counts client answers in memory, per thread: each event loop (and each other thread that answers a call)
/// has its own counts behind its own lock, which only that thread and the flush, once per interval, ever
/// take. No lock is shared between loops and no call waits on the database.
final class InsightsRecorder: Sendable {
    /// Counting and sampling are on (`--insights`).
    let enabled: Bool
    /// Instances each project's sample keeps (`--insights-sample-size`).
    let sampleSize: Int

    /// One thread's counts.
    private final class Shard: Sendable {
        struct State {
            var counts: [InsightsBatch.Key: InsightCounts] = [:]
            var samples: [String: BottomKSample<PackedContext>] = [:]
        }
        let state = NIOLockedValueBox(State())
    }

    private let local = ThreadSpecificVariable<Shard>()
    /// Every thread's shard, for the flush; changed once per thread.
    private let shards = NIOLockedValueBox<[Shard]>([])

    init(enabled: Bool, sampleSize: Int) {
        self.enabled = enabled
        self.sampleSize = sampleSize
    }

    private var shard: Shard {
        if let shard = local.currentValue { return shard }
        let shard = Shard()
        local.currentValue = shard
        shards.withLockedValue { $0.append(shard) }
        return shard
    }

    /// Counts one answer for `project` at `now`: `tally` is what it answered, all of it or (`position`) the
    /// one flag an OFREP single evaluation asked for.
    func record(project: String, caller: InsightCaller, now: Date, tally: AnswerTally, position: Int? = nil) {
        guard enabled else { return }
        let hour = Int((now.timeIntervalSince1970 / 3600).rounded(.down))
        let key = InsightsBatch.Key(project: project, hour: hour)
        let sampleSize = self.sampleSize
        shard.state.withLockedValue { state in
            state.counts[key, default: InsightCounts()].record(
                platform: caller.context.platform, version: caller.context.appVersion, hash: caller.hash,
                tally: tally, position: position)
            guard let hash = caller.hash, sampleSize > 0 else { return }
            let sampleKey = InstanceHash.sampleKey(hash)
            if state.samples[project] == nil { state.samples[project] = BottomKSample(capacity: sampleSize) }
            state.samples[project]!.offer(key: sampleKey, context: PackedContext(caller.context, now: now))
        }
    }

    /// Takes every thread's counts so far (each thread starts afresh), added up.
    func drain() -> InsightsBatch {
        var batch = InsightsBatch()
        for shard in shards.withLockedValue({ $0 }) {
            let state = shard.state.withLockedValue { state in
                // Each sample keeps its threshold: after the first interval, only the few instances that can
                // still be among a project's smallest are held between flushes, not a sample's worth again.
                defer { state = Shard.State(samples: state.samples.mapValues { $0.emptied() }) }
                return state
            }
            var part = InsightsBatch()
            part.counts = state.counts
            for (project, sample) in state.samples {
                var converted = BottomKSample<InsightsBatch.Sample>(capacity: sampleSize)
                for (key, packed) in sample.entries {
                    guard let sampled = SampledContext(packed.context) else { continue }
                    converted.offer(key: key, context: InsightsBatch.Sample(context: sampled, lastSeen: packed.now))
                }
                converted.trim()
                part.samples[project] = converted
            }
            batch.merge(part)
        }
        return batch
    }
}
