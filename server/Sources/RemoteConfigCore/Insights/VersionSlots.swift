/// The platforms and versions of one `InsightCounts` and their counts, laid out so that counting an answer
/// reads one cache line of them: an open-addressed table whose entry, found by the key's fingerprint, holds
/// the answers and the last few instances, which go to the key's sketch eight at a time.
///
/// A fleet's versions' counts outgrow the processor's caches on a busy server, so each line an answer reads
/// here is a miss. Found through a table of positions, compared with its key, counted in a list and added
/// to its sketch at once, an answer took five (the position, the key, the count, the sketch's storage, its
/// register), each waited for in turn. Now it takes the entry's, and a batch of eight its sketch's storage
/// once and its registers side by side.
///
/// Keys are told apart by their 64-bit fingerprint alone: reading the texts would be a miss more. Two keys
/// of a project's at most a few hundred share a fingerprint with a chance below one in 10^13; a caller who
/// forged a version with another's fingerprint would add to that version's answers, as sending that version
/// would.
struct VersionSlots: Sendable {
    /// One platform and version: 56 bytes.
    private struct Entry: Sendable {
        typealias Waiting = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

        var fingerprint: UInt64 = 0
        var answers = 0
        /// Its position in `keys` and `sketches`, + 1; 0: a free entry.
        var place: Int32 = 0
        var waitingCount: Int32 = 0
        /// What instances not yet in its sketch set (`HyperLogLog.register(of:)`): the first `waitingCount`.
        var waiting: Waiting = (0, 0, 0, 0, 0, 0, 0, 0)

        /// The waiting instances, for `body`.
        func withWaiting<Result>(_ body: (UnsafeBufferPointer<UInt32>) -> Result) -> Result {
            withUnsafeBytes(of: waiting) { bytes in
                body(UnsafeBufferPointer(rebasing: bytes.bindMemory(to: UInt32.self)[..<Int(waitingCount)]))
            }
        }
    }

    /// Open-addressed by fingerprint; a power of two, at least twice the keys.
    private var table: [Entry] = []
    /// Each key, in the order first counted.
    private var keys: [InsightCounts.VersionKey] = []
    /// Each key's distinct instances but its entry's waiting ones.
    private var sketches: [HyperLogLog] = []

    /// Whether no key was counted.
    var isEmpty: Bool { keys.isEmpty }

    /// Every key's count.
    var counts: [InsightCounts.VersionKey: InsightCounts.VersionCount] {
        var counts = [InsightCounts.VersionKey: InsightCounts.VersionCount](minimumCapacity: keys.count)
        for entry in table where entry.place > 0 {
            let position = Int(entry.place) - 1
            var sketch = sketches[position]
            entry.withWaiting { sketch.add(registers: $0) }
            counts[keys[position]] = InsightCounts.VersionCount(answers: entry.answers, instances: sketch)
        }
        return counts
    }

    /// `key`'s place, nil when it was not counted.
    func slot(of key: InsightCounts.VersionKey) -> Int? {
        guard !table.isEmpty else { return nil }
        let mask = table.count - 1
        var index = Self.start(key.fingerprint, mask)
        while table[index].place != 0 {
            if table[index].fingerprint == key.fingerprint { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Adds a key not counted yet and returns its place.
    mutating func insert(_ key: InsightCounts.VersionKey) -> Int {
        if 2 * (keys.count + 1) > table.count {
            let old = table
            table = [Entry](repeating: Entry(), count: max(16, 2 * table.count))
            for entry in old where entry.place != 0 { table[free(for: entry.fingerprint)] = entry }
        }
        keys.append(key)
        sketches.append(HyperLogLog())
        let index = free(for: key.fingerprint)
        table[index].fingerprint = key.fingerprint
        table[index].place = Int32(keys.count)
        return index
    }

    /// Counts an answer at `slot`, to an instance with `hash` (nil: none sent).
    mutating func count(at slot: Int, hash: UInt64?) {
        table[slot].answers += 1
        guard let hash else { return }
        let register = HyperLogLog.register(of: hash)
        let count = Int(table[slot].waitingCount)
        withUnsafeMutableBytes(of: &table[slot].waiting) {
            $0.storeBytes(of: register, toByteOffset: count * MemoryLayout<UInt32>.stride, as: UInt32.self)
        }
        table[slot].waitingCount += 1
        if count + 1 == MemoryLayout<Entry.Waiting>.size / MemoryLayout<UInt32>.stride {
            let entry = table[slot]
            entry.withWaiting { sketches[Int(entry.place) - 1].add(registers: $0) }
            table[slot].waitingCount = 0
        }
    }

    /// Adds `count` at `slot`.
    mutating func add(_ count: InsightCounts.VersionCount, at slot: Int) {
        table[slot].answers += count.answers
        sketches[Int(table[slot].place) - 1].merge(count.instances)
    }

    private func free(for fingerprint: UInt64) -> Int {
        let mask = table.count - 1
        var index = Self.start(fingerprint, mask)
        while table[index].place != 0 { index = (index + 1) & mask }
        return index
    }

    /// Where a fingerprint's probe starts: its high bits after a multiply, which mix every bit of it.
    private static func start(_ fingerprint: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (fingerprint &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }
}
