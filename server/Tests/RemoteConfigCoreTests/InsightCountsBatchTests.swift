import RemoteConfigCore
import RemoteConfigTestHistories
import Testing

/// Counting adds instances to their version's sketch a batch at a time: no instance may be lost or counted
/// twice on the way, whichever way the counts are read.
@Suite("Insights: instances counted in batches")
struct InsightCountsBatchTests {
    private static let spread: UInt64 = 0x9E37_79B9_7F4A_7C15  // distinct instances land in distinct registers

    private static func key(_ version: String) -> InsightCounts.VersionKey {
        .init(platform: "IOS", version: version)
    }

    @Test("Instances not yet in a sketch count when the counts are read, merged, or counted on")
    func waitingInstancesCount() {
        var counts = InsightCounts()
        for instance in 1...5 {
            counts.record(platform: .ios, version: "1.0", hash: UInt64(instance) &* Self.spread, tally: .empty)
        }
        for instance in 1...3 {
            counts.record(platform: .ios, version: "2.0", hash: UInt64(100 + instance) &* Self.spread, tally: .empty)
            // The same instance again: one instance, two answers.
            counts.record(platform: .ios, version: "2.0", hash: UInt64(100 + instance) &* Self.spread, tally: .empty)
        }
        #expect(counts.versions[Self.key("1.0")]?.instances.count == 5)
        #expect(counts.versions[Self.key("2.0")]?.instances.count == 3)
        #expect(counts.versions[Self.key("2.0")]?.answers == 6)

        // Reading did not take the waiting instances away: 20 more, across two batches and a part.
        for instance in 6...25 {
            counts.record(platform: .ios, version: "1.0", hash: UInt64(instance) &* Self.spread, tally: .empty)
        }
        #expect(counts.versions[Self.key("1.0")]?.instances.count == 25)
        #expect(counts.versions[Self.key("1.0")]?.answers == 25)

        var merged = InsightCounts()
        merged.merge(counts)
        merged.merge(counts)
        #expect(merged.versions[Self.key("1.0")]?.instances.count == 25)
        #expect(merged.versions[Self.key("1.0")]?.answers == 50)
        #expect(merged.versions[Self.key("2.0")]?.instances.count == 3)
    }

    @Test("Counting 100,000 instances over 180 versions gives each version the sketch of its own instances")
    func batchedSketchesEqualDirectOnes() {
        var counts = InsightCounts()
        var direct: [String: HyperLogLog] = [:]
        var answers: [String: Int] = [:]
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<100_000 {
            // Versions of very different popularity: some stay sparse, some turn dense.
            let version = "1.\(generator.next() % 12).\(generator.next() % (1 + generator.next() % 15))"
            let hash = generator.next() >> (generator.next() % 8)
            counts.record(platform: .android, version: version, hash: hash, tally: .empty)
            direct[version, default: HyperLogLog()].add(hash: hash)
            answers[version, default: 0] += 1
        }
        let versions = counts.versions
        #expect(versions.count == direct.count)
        for (version, sketch) in direct {
            let counted = versions[.init(platform: "ANDROID", version: version)]
            #expect(counted?.instances == sketch, "\(version)")
            #expect(counted?.answers == answers[version])
        }
    }

    @Test("A batch of registers sets what adding each hash sets, sparse or dense")
    func registersAddAsHashes() {
        var generator = SeededGenerator(seed: 9)
        for size in [3, 200, 5_000] {
            var oneByOne = HyperLogLog()
            var batched = HyperLogLog()
            var batch: [UInt32] = []
            for _ in 0..<size {
                let hash = generator.next()
                oneByOne.add(hash: hash)
                batch.append(HyperLogLog.register(of: hash))
                if batch.count == 8 {
                    batch.withUnsafeBufferPointer { batched.add(registers: $0) }
                    batch.removeAll()
                }
            }
            batch.withUnsafeBufferPointer { batched.add(registers: $0) }
            #expect(batched == oneByOne, "\(size) instances")
            #expect(batched.serialized() == oneByOne.serialized())
        }
    }
}
