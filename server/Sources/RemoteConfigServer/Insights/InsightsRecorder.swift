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
    fileprivate final class Shard: Sendable {
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

    /// Every thread's counts since the last time, taken from the threads but not yet added up: a flush turns
    /// them into batches one project at a time (`batch(of:from:)`), so that it never holds every project's
    /// converted sample at once (with 200 projects, that peak was a third of what a minute of new devices
    /// grew the server by).
    struct Taken {
        fileprivate var states: [Shard.State]

        /// The projects something was counted for.
        var projects: Set<String> {
            var projects = Set<String>()
            for state in states {
                for key in state.counts.keys { projects.insert(key.project) }
                projects.formUnion(state.samples.keys)
            }
            return projects
        }
    }

    /// Takes every thread's counts so far; each thread starts afresh.
    func take() -> Taken {
        Taken(
            states: shards.withLockedValue { $0 }.map { shard in
                shard.state.withLockedValue { state in
                    // Each sample keeps its threshold: after the first interval, only the few instances that can
                    // still be among a project's smallest are held between flushes, not a sample's worth again.
                    defer { state = Shard.State(samples: state.samples.mapValues { $0.emptied() }) }
                    return state
                }
            })
    }

    /// `project`'s counts in `taken`, added up over the threads, and removed from `taken`.
    func batch(of project: String, from taken: inout Taken) -> InsightsBatch {
        var batch = InsightsBatch()
        for index in taken.states.indices {
            var part = InsightsBatch()
            for key in taken.states[index].counts.keys.filter({ $0.project == project }) {
                part.counts[key] = taken.states[index].counts.removeValue(forKey: key)
            }
            if let sample = taken.states[index].samples.removeValue(forKey: project) {
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

    /// Takes every thread's counts so far (each thread starts afresh), added up.
    func drain() -> InsightsBatch {
        var taken = take()
        var batch = InsightsBatch()
        for project in taken.projects { batch.merge(self.batch(of: project, from: &taken)) }
        return batch
    }
}
