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
        /// One project's counts on this thread: found with one lookup of the project per call (the hour's
        /// counts and the sample were each their own lookup, three hashes of the project's name).
        struct Project {
            /// Counts per hour since 1970 (one, but for the minute a flush interval crosses an hour).
            var hours: [Int: InsightCounts] = [:]
            var sample: BottomKSample<PackedContext>?
        }
        struct State {
            var projects: [String: Project] = [:]
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
        let sampleSize = self.sampleSize
        shard.state.withLockedValue { state in
            Self.record(
                into: &state.projects[project, default: Shard.Project()], hour: hour, caller: caller, now: now,
                tally: tally, position: position, sampleSize: sampleSize)
        }
    }

    private static func record(
        into counts: inout Shard.Project, hour: Int, caller: InsightCaller, now: Date, tally: AnswerTally,
        position: Int?, sampleSize: Int
    ) {
        counts.hours[hour, default: InsightCounts()].record(
            platform: caller.context.platform, version: caller.context.appVersion, hash: caller.hash, tally: tally,
            position: position)
        guard let hash = caller.hash, sampleSize > 0 else { return }
        if counts.sample == nil { counts.sample = BottomKSample(capacity: sampleSize) }
        counts.sample!.offer(key: InstanceHash.sampleKey(hash), context: PackedContext(caller.context, now: now))
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
            for state in states { projects.formUnion(state.projects.keys) }
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
                    defer {
                        state = Shard.State(
                            projects: state.projects.compactMapValues { project in
                                project.sample.map { Shard.Project(sample: $0.emptied()) }
                            })
                    }
                    return state
                }
            })
    }

    /// `project`'s counts in `taken`, added up over the threads, and removed from `taken`.
    func batch(of project: String, from taken: inout Taken) -> InsightsBatch {
        var batch = InsightsBatch()
        for index in taken.states.indices {
            var part = InsightsBatch()
            guard let counts = taken.states[index].projects.removeValue(forKey: project) else { continue }
            for (hour, count) in counts.hours where !count.isEmpty {
                part.counts[InsightsBatch.Key(project: project, hour: hour)] = count
            }
            if let sample = counts.sample {
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
