/// A uniform sample of distinct app instances: the `capacity` instances with the smallest hash, each with
/// the last context it sent. It deduplicates by itself (an instance has one hash) and merges across loops,
/// servers and hours by keeping the smallest again.
public struct BottomKSample<Context: Sendable>: Sendable {
    /// Instances kept at most (after `trim()`).
    public let capacity: Int
    /// Sample key (`InstanceHash.sampleKey`) → the last context and when it was sent.
    public private(set) var entries: [Int64: Context] = [:]
    /// Keys above this are not in the `capacity` smallest seen so far.
    private var threshold = Int64.max

    /// An empty sample of at most `capacity` instances.
    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Offers an instance; kept (or its context replaced) when its key is among the smallest. Costs a
    /// comparison for nearly every call of a large fleet.
    public mutating func offer(key: Int64, context: @autoclosure () -> Context) {
        guard capacity > 0, key <= threshold else { return }
        entries[key] = context()
        // Let it grow to twice the capacity, then cut: sorting once per `capacity` insertions.
        if entries.count >= 2 * capacity { trim() }
    }

    /// Keeps only the `capacity` smallest keys.
    public mutating func trim() {
        guard entries.count > capacity else { return }
        let kept = entries.keys.sorted().prefix(capacity)
        threshold = kept.last ?? .max
        var smaller: [Int64: Context] = [:]
        smaller.reserveCapacity(capacity)
        for key in kept { smaller[key] = entries[key] }
        entries = smaller
    }

    /// The same sample with no instances, keeping what it learned: a key above its threshold has `capacity`
    /// smaller ones already seen, so it can never be among the smallest and stays out. What a counter starts
    /// each interval with, so a sample refills only with the instances that can still be in it.
    public func emptied() -> BottomKSample<Context> {
        var empty = BottomKSample(capacity: capacity)
        empty.threshold = threshold
        return empty
    }

    /// Adds `other`'s instances (its contexts win for instances both hold: call with the newer one).
    public mutating func merge(_ other: BottomKSample<Context>) {
        for (key, context) in other.entries { offer(key: key, context: context) }
        trim()
    }
}
