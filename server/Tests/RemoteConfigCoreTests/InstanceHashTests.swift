import Foundation
import RemoteConfigCore
import RemoteConfigTestHistories
import Testing

@Suite("Insights: the instance hash")
struct InstanceHashTests {
    /// Ids as apps send them: UUIDs, 32 hex digits, counters with a prefix, bare numbers.
    private static func ids(_ count: Int, shape: Int, seed: UInt64) -> [String] {
        var generator = SeededGenerator(seed: seed)
        func hex(_ digits: Int) -> String { String(String(format: "%016llx", generator.next()).prefix(digits)) }
        return (0..<count).map { index in
            switch shape {
            case 0: return "\(hex(8))-\(hex(4))-\(hex(4))-\(hex(4))-\(hex(12))".uppercased()
            case 1: return hex(16) + hex(16)
            case 2: return "instance-\(index)"
            default: return "\(index + Int(seed) * 10_000_000)"
            }
        }
    }

    @Test("Every server and every process hashes an id alike: wyhash with seed 0")
    func fixedValues() {
        // wyhash's own published value for the empty text, and values of the same function for the lengths
        // its branches take (under 4 bytes, up to 16, up to 48, past 48) and for text beyond ASCII.
        #expect(InstanceHash.of("") == 0x9322_8a4d_e0ee_c5a2)
        #expect(InstanceHash.of("abc") == 0x989b_4a20_9c10_11c9)
        #expect(InstanceHash.of("device-1") == 0x6447_1ded_d20b_121c)
        #expect(InstanceHash.of("0123456789abcdef0123456789abcdef") == 0x90d6_07c9_b025_57fb)
        #expect(InstanceHash.of("3f2504e0-4f89-11d3-9a0c-0305e82c3301") == 0xfea1_8ea4_a223_7d33)
        #expect(InstanceHash.of(String(repeating: "x", count: 100)) == 0x39d3_b161_7320_fdbf)
        #expect(InstanceHash.of("é") == 0x6421_7076_8ca0_49e8)
    }

    @Test("Ids of every shape estimate within 2% (root mean square) from 1,000 to 300,000 instances")
    func hyperLogLogOverRealIds() {
        var squares = 0.0
        var worst = 0.0
        var runs = 0
        for shape in 0..<4 {
            for (index, truth) in [1_000, 10_000, 100_000, 300_000].enumerated() {
                var sketch = HyperLogLog()
                for id in Self.ids(truth, shape: shape, seed: UInt64(shape * 10 + index + 1)) {
                    sketch.add(hash: InstanceHash.of(id))
                }
                let error = (sketch.estimate - Double(truth)) / Double(truth)
                squares += error * error
                worst = max(worst, abs(error))
                runs += 1
            }
        }
        let rootMeanSquare = (squares / Double(runs)).squareRoot()
        #expect(rootMeanSquare <= 0.02, "relative standard error \(rootMeanSquare)")
        #expect(worst <= 0.05, "worst relative error \(worst)")
    }

    @Test("Sequential ids spread evenly over the sketch's registers and the sample's order")
    func uniformity() {
        let hashes = Self.ids(200_000, shape: 2, seed: 1).map(InstanceHash.of)
        // Registers (the top 12 bits): chi-square over 4,096 cells, 4,095 degrees of freedom (mean 4,095,
        // standard deviation 90.5); four standard deviations above the mean fails.
        var cells = [Int](repeating: 0, count: HyperLogLog.registerCount)
        for hash in hashes { cells[Int(hash >> UInt64(64 - HyperLogLog.precision))] += 1 }
        let expected = Double(hashes.count) / Double(cells.count)
        let chiSquare = cells.reduce(0.0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
        #expect(chiSquare < 4_095 + 4 * 90.5, "chi-square \(chiSquare)")
        // The sample keeps the smallest signed ranks: their share below each quantile is the quantile's.
        let key = SipHashKey(k0: 0x0123_4567_89ab_cdef, k1: 0xfedc_ba98_7654_3210)
        let keys = Self.ids(200_000, shape: 2, seed: 1).map { SampleHash.of($0, key: key) }
        for quantile in [0.001, 0.01, 0.5] {
            let bound = Int64(Double(Int64.min) + quantile * 18_446_744_073_709_551_616.0)
            let share = Double(keys.count(where: { $0 < bound })) / Double(keys.count)
            let error = (quantile * (1 - quantile) / Double(keys.count)).squareRoot()
            #expect(abs(share - quantile) < 4 * error, "share \(share) below the \(quantile) quantile")
        }
    }
}
