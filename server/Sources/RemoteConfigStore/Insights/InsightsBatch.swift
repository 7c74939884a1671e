import Foundation
import RemoteConfigCore

/// What one server counted since its last flush, ready to add to the database.
public struct InsightsBatch: Sendable {
    /// One project's UTC hour.
    public struct Key: Sendable, Hashable {
        public let project: String
        /// Hours since 1970 (UTC).
        public let hour: Int

        /// Creates a key.
        public init(project: String, hour: Int) {
            self.project = project
            self.hour = hour
        }

        /// The start of the hour.
        public var start: Date { Date(timeIntervalSince1970: Double(hour) * 3600) }
    }

    /// A sampled instance: its context and when it sent it.
    public struct Sample: Sendable {
        public var context: SampledContext
        public var lastSeen: Date

        /// Creates a sample entry.
        public init(context: SampledContext, lastSeen: Date) {
            self.context = context
            self.lastSeen = lastSeen
        }
    }

    /// Counts per project and hour.
    public var counts: [Key: InsightCounts] = [:]
    /// The bottom-k sample per project, by `SampleHash`.
    public var samples: [String: BottomKSample<Sample>] = [:]

    /// An empty batch.
    public init() {}

    /// Whether there is nothing to write.
    public var isEmpty: Bool { counts.values.allSatisfy(\.isEmpty) && samples.values.allSatisfy(\.entries.isEmpty) }

    /// The projects with something to write.
    public var projects: Set<String> { Set(counts.keys.map(\.project)).union(samples.keys) }

    /// Takes `project`'s counts and sample out of this batch, as a batch of their own.
    public mutating func takePart(of project: String) -> InsightsBatch {
        var part = InsightsBatch()
        for key in counts.keys where key.project == project {
            part.counts[key] = counts.removeValue(forKey: key)
        }
        part.samples[project] = samples.removeValue(forKey: project)
        return part
    }

    /// The answers counted in this batch, over every project and hour.
    public var answers: Int { counts.values.reduce(0) { $0 + $1.versions.values.reduce(0) { $0 + $1.answers } } }

    /// Adds `other` (another loop's counts): counts add up, samples keep the smallest.
    public mutating func merge(_ other: InsightsBatch) {
        for (key, count) in other.counts {
            if counts[key] == nil {
                counts[key] = count
            } else {
                counts[key]!.merge(count)
            }
        }
        for (project, sample) in other.samples {
            if samples[project] == nil {
                samples[project] = sample
            } else {
                samples[project]!.merge(sample)
            }
        }
    }
}

/// Which server writes a batch and its place in that server's order: a write whose place is not after the last
/// one of its server and project that is in already adds nothing, so a batch sent again (after a failure that
/// PostgreSQL finished anyway) is counted once. A server sends a project's next write only once the one before
/// is in or given up.
public struct InsightsWrite: Sendable, Hashable {
    public let writer: UUID
    public let sequence: Int64

    public init(writer: UUID, sequence: Int64) {
        self.writer = writer
        self.sequence = sequence
    }
}
