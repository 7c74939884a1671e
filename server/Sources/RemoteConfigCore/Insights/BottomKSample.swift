/// A uniform sample of distinct app instances: the `capacity` instances with the smallest hash, each with
/// the last context it sent. It deduplicates by itself (an instance has one hash) and merges across loops,
/// servers and hours by keeping the smallest again.
public struct BottomKSample<Context: Sendable>: Sendable {
    /// Instances kept at most (after `trim()`).
    public let capacity: Int
    /// Rank (`SampleHash`) → the last context and when it was sent.
    public var entries: [Int64: Context] { kept }
    @usableFromInline var kept: [Int64: Context] = [:]
    /// Keys above this are not in the `capacity` smallest seen so far (here, or in a sample it adopted).
    @usableFromInline var threshold = Int64.max
    /// Keys above this are not kept: `Int64.max` until the sample first fills or adopts a bound.
    public var cutoff: Int64 { threshold }

    /// An empty sample of at most `capacity` instances.
    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Offers an instance; kept (or its context replaced) when its key is among the smallest. Costs a
    /// comparison for nearly every call of a large fleet. Inlinable, so that the server's sample is
    /// specialized for its context type: unspecialized, each entry was copied through the type's witnesses.
    @inlinable public mutating func offer(key: Int64, context: @autoclosure () -> Context) {
        guard capacity > 0, key <= threshold else { return }
        kept[key] = context()
        // Let it grow to twice the capacity, then cut: sorting once per `capacity` insertions.
        if kept.count >= 2 * capacity { trim() }
    }

    /// Keeps only the `capacity` smallest keys.
    @inlinable public mutating func trim() {
        guard kept.count > capacity, capacity > 0 else { return }
        // The capacity-th smallest key by selection, not by sorting every key: this runs on the event loop
        // once per `capacity` instances taken while a sample fills (a sort of 20,000 keys was 1% of a fetch).
        var keys = Array(kept.keys)
        let bound = Self.select(&keys, rank: capacity - 1)
        threshold = bound
        kept = kept.filter { $0.key <= bound }
    }

    /// The `rank`-th smallest of `keys` (0: the smallest), reordering them (Hoare's selection).
    @usableFromInline static func select(_ keys: inout [Int64], rank: Int) -> Int64 {
        var low = 0
        var high = keys.count - 1
        while low < high {
            let pivot = keys[low + (high - low) / 2]
            var left = low
            var right = high
            while left <= right {
                while keys[left] < pivot { left += 1 }
                while keys[right] > pivot { right -= 1 }
                if left <= right {
                    keys.swapAt(left, right)
                    left += 1
                    right -= 1
                }
            }
            if rank <= right {
                high = right
            } else if rank >= left {
                low = left
            } else {
                return keys[rank]
            }
        }
        return keys[rank]
    }

    /// The same sample with no instances, keeping what it learned: a key above its threshold has `capacity`
    /// smaller ones already seen, so it can never be among the smallest and stays out. What a counter starts
    /// each interval with, so a sample refills only with the instances that can still be in it.
    public func emptied() -> BottomKSample<Context> {
        var empty = BottomKSample(capacity: capacity)
        empty.threshold = threshold
        return empty
    }

    /// Moves the threshold to `bound`: the largest key of the full sample this one's instances end up merged
    /// into (the stored sample, the other loops' and servers'), or `Int64.max` while that sample is not full.
    /// Lowered, it lets go of the keys above it: that sample already holds `capacity` smaller keys, so they
    /// could never stay in it; what is kept after a merge is the same, only what is held in between shrinks.
    /// Raised (the stored sample lost instances not seen within the retention), instances it turned away can
    /// enter again, so the stored sample fills back up instead of shrinking for as long as the server runs.
    public mutating func adopt(threshold bound: Int64) {
        if bound < threshold, let largest = kept.keys.max(), largest > bound {
            kept = kept.filter { $0.key <= bound }
        }
        threshold = bound
    }

    /// Adds `other`'s instances (its contexts win for instances both hold: call with the newer one).
    public mutating func merge(_ other: BottomKSample<Context>) {
        for (key, context) in other.entries { offer(key: key, context: context) }
        trim()
    }
}
