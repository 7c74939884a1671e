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
    /// The key of the sample's order (`SampleHash`), the database's, so that every replica samples alike and
    /// nobody outside can tell which instance ids rank first.
    let sampleKey: SipHashKey
    /// Bytes the samples of every project on every thread hold between flushes, together. Until a project's
    /// stored sample is full every new instance is a candidate, so without it a fleet of new devices across
    /// many projects held up to two samples per project per thread: 200 projects, gigabytes. Past it, an
    /// instance is not sampled this interval (it is counted all the same, and sampled at a later fetch).
    let sampleBudget: ByteBudget
    /// Counts the instances the budget turned away (`rc_insights_samples_dropped_total`).
    private let metrics: ServerMetrics?

    /// The samples' budget by default: 16 MiB, about 70,000 sampled contexts of the fetch body's usual shape.
    static let defaultSampleBudget = 16 << 20

    /// One thread's counts.
    fileprivate final class Shard: Sendable {
        /// One project's counts on this thread.
        struct Project {
            /// The hour since 1970 that `current` counts.
            var hour = Int.min
            /// This hour's counts: changed in place, with no lookup of the hour per call.
            var current = InsightCounts()
            /// Other hours' counts (for the minute a flush interval crosses an hour, or a clock set back).
            var earlier: [Int: InsightCounts] = [:]
            var sample: BottomKSample<PackedContext>
            /// Whether an instance was ever offered to `sample` (the flush writes a sample only then).
            var sampled = false
            /// What `sample` holds of the recorder's `sampleBudget`.
            var sampleBytes = 0

            init(sampleSize: Int) {
                sample = BottomKSample(capacity: sampleSize)
            }

            /// Makes `hour`'s counts the current ones.
            mutating func move(to hour: Int) {
                if !current.isEmpty { earlier[self.hour] = current }
                current = earlier.removeValue(forKey: hour) ?? InsightCounts()
                self.hour = hour
            }

            /// Every hour's counts.
            var hours: [Int: InsightCounts] {
                var hours = earlier
                if !current.isEmpty { hours[hour] = current }
                return hours
            }
        }
        struct State {
            /// Each project's place in `counts`.
            var places: [String: Int] = [:]
            var counts: [Project] = []
            /// The project of the last call and its place: a thread's calls are mostly for one project, and
            /// comparing its name (the same string each time) costs less than hashing it.
            var last: (project: String, place: Int)?

            /// Each project's counts by name, of the projects with something to flush.
            var projects: [String: Project] {
                places.mapValues { counts[$0] }.filter { !$0.value.hours.isEmpty || $0.value.sampled }
            }
        }
        let state = NIOLockedValueBox(State())
    }

    private let local = ThreadSpecificVariable<Shard>()
    /// Every thread's shard, for the flush; changed once per thread.
    private let shards = NIOLockedValueBox<[Shard]>([])
    /// Each project's bound from the stored sample (`adopt`): read when a thread first counts the project.
    private let bounds = NIOLockedValueBox<[String: Int64]>([:])

    init(
        enabled: Bool, sampleSize: Int, sampleKey: SipHashKey,
        sampleBudget: ByteBudget = ByteBudget(limit: defaultSampleBudget), metrics: ServerMetrics? = nil
    ) {
        self.enabled = enabled
        self.sampleSize = sampleSize
        self.sampleKey = sampleKey
        self.sampleBudget = sampleBudget
        self.metrics = metrics
    }

    private var shard: Shard {
        if let shard = local.currentValue { return shard }
        let shard = Shard()
        local.currentValue = shard
        shards.withLockedValue { $0.append(shard) }
        return shard
    }

    /// Counts one answer to the caller of `context` for `project` at `now`: `tally` is what it answered, all of
    /// it or (`position`) the one flag an OFREP single evaluation asked for. The context is borrowed, not kept:
    /// a copy of it per call (a retain and a release of each of its texts) cost a tenth of counting.
    /// `signalsRead` (the custom signals the published conditions read, kept first when a sampled context is
    /// cut to its budget) is asked only when the context enters the sample.
    func record(
        project: String, context: FetchContext, now: Date, tally: AnswerTally, position: Int? = nil,
        signalsRead: @autoclosure () -> Set<String> = []
    ) {
        guard enabled else { return }
        let sampleSize = self.sampleSize
        let hash = context.appInstanceId.map(InstanceHash.of)
        // The sketches' hash is public (stored sketches must keep merging); the sample's rank is keyed.
        let rank = sampleSize > 0 ? context.appInstanceId.map { SampleHash.of($0, key: sampleKey) } : nil
        let hour = Int((now.timeIntervalSince1970 / 3600).rounded(.down))
        shard.state.withLockedValue { state in
            let place: Int
            if let last = state.last, last.project == project {
                place = last.place
            } else if let known = state.places[project] {
                place = known
                state.last = (project, place)
            } else {
                place = state.counts.count
                var counts = Shard.Project(sampleSize: sampleSize)
                if let bound = bounds.withLockedValue({ $0[project] }) { counts.sample.adopt(threshold: bound) }
                state.counts.append(counts)
                state.places[project] = place
                state.last = (project, place)
            }
            record(
                into: &state.counts[place], hour: hour, context: context, hash: hash, rank: rank, now: now,
                tally: tally, position: position, signalsRead: signalsRead)
        }
    }

    private func record(
        into counts: inout Shard.Project, hour: Int, context: FetchContext, hash: UInt64?, rank: Int64?,
        now: Date, tally: AnswerTally, position: Int?, signalsRead: () -> Set<String>
    ) {
        if hour != counts.hour { counts.move(to: hour) }
        counts.current.record(
            platform: context.platform, version: context.appVersion, hash: hash, tally: tally, position: position)
        guard let rank, counts.sample.capacity > 0 else { return }
        counts.sampled = true
        guard rank <= counts.sample.cutoff else { return }
        let packed = PackedContext(context, now: now, reading: context.customSignals.isEmpty ? [] : signalsRead())
        let previous = counts.sample.entries[rank]
        let added = packed.bytes - (previous?.bytes ?? 0)
        guard added <= 0 || sampleBudget.reserve(added) else {
            metrics?.sampleDropped()
            return
        }
        sampleBudget.release(-added)
        let held = counts.sample.entries.count
        counts.sample.offer(key: rank, context: packed)
        counts.sampleBytes += added
        // The sample cut itself back to its capacity (once per `sampleSize` new instances): what it let go is
        // the budget's again.
        if counts.sample.entries.count < held { Self.settle(&counts, budget: sampleBudget) }
    }

    /// Makes `counts.sampleBytes` what its sample holds now, giving the difference back to `budget`.
    private static func settle(_ counts: inout Shard.Project, budget: ByteBudget) {
        let held = counts.sample.entries.values.reduce(0) { $0 + $1.bytes }
        budget.release(counts.sampleBytes - held)
        counts.sampleBytes = held
    }

    /// Moves each project's sample bound on every thread to `bounds` (the largest key of the project's full
    /// stored sample, or `Int64.max` while it is not full, from the start-up read or a flush): an instance
    /// above it can never enter the stored sample, so no thread keeps it. After a restart a thread's sample
    /// begins where the stored one stands instead of taking `sampleSize` new instances first, and the threads
    /// of one server and the servers of one database do not each keep a full sample of their own. The bound
    /// also rises: when the retention deletes instances not seen for its days, the stored sample takes new
    /// ones again. What the stored sample becomes stays the same.
    func adopt(_ bounds: [String: Int64]) {
        guard enabled, sampleSize > 0, !bounds.isEmpty else { return }
        self.bounds.withLockedValue { known in
            for (project, bound) in bounds { known[project] = bound }
        }
        for shard in shards.withLockedValue({ $0 }) {
            shard.state.withLockedValue { state in
                for (project, bound) in bounds {
                    guard let place = state.places[project] else { continue }
                    let held = state.counts[place].sample.entries.count
                    state.counts[place].sample.adopt(threshold: bound)
                    if state.counts[place].sample.entries.count < held {
                        Self.settle(&state.counts[place], budget: sampleBudget)
                    }
                }
            }
        }
    }

    /// The bound a thread's sample of `project` would begin with: `Int64.max` until one is adopted.
    func bound(of project: String) -> Int64 {
        bounds.withLockedValue { $0[project] } ?? .max
    }

    /// Every thread's counts since the last time, taken from the threads but not yet added up: a flush turns
    /// them into batches one project at a time (`batch(of:from:)`), so that it never holds every project's
    /// converted sample at once (with 200 projects, that peak was a third of what a minute of new devices
    /// grew the server by).
    struct Taken {
        fileprivate var states: [[String: Shard.Project]]

        /// The projects something was counted for.
        var projects: Set<String> {
            var projects = Set<String>()
            for state in states { projects.formUnion(state.keys) }
            return projects
        }
    }

    /// Takes every thread's counts so far; each thread starts afresh.
    func take() -> Taken {
        let sampleSize = self.sampleSize
        return Taken(
            states: shards.withLockedValue { $0 }.map { shard in
                shard.state.withLockedValue { state in
                    let taken = state.projects
                    // Each sample keeps its threshold: after the first interval, only the few instances that can
                    // still be among a project's smallest are held between flushes, not a sample's worth again.
                    state.counts = state.counts.map { project in
                        var fresh = Shard.Project(sampleSize: sampleSize)
                        fresh.sample = project.sample.emptied()
                        fresh.sampled = project.sampled
                        return fresh
                    }
                    return taken
                }
            })
    }

    /// `project`'s counts in `taken`, added up over the threads, and removed from `taken`.
    func batch(of project: String, from taken: inout Taken) -> InsightsBatch {
        var batch = InsightsBatch()
        for index in taken.states.indices {
            var part = InsightsBatch()
            guard let counts = taken.states[index].removeValue(forKey: project) else { continue }
            for (hour, count) in counts.hours where !count.isEmpty {
                part.counts[InsightsBatch.Key(project: project, hour: hour)] = count
            }
            if counts.sampled {
                let sample = counts.sample
                var converted = BottomKSample<InsightsBatch.Sample>(capacity: sampleSize)
                for (key, packed) in sample.entries {
                    guard let sampled = SampledContext(packed.context) else { continue }
                    converted.offer(key: key, context: InsightsBatch.Sample(context: sampled, lastSeen: packed.now))
                }
                converted.trim()
                part.samples[project] = converted
                sampleBudget.release(counts.sampleBytes)
            }
            batch.merge(part)
        }
        return batch
    }
}
