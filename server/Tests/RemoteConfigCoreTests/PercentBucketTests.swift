import CSHA256
import Crypto
import Foundation
import Testing

@testable import RemoteConfigCore

@Suite("Percent buckets")
struct PercentBucketTests {
    @Test(
        "known buckets (Firebase's server-side evaluator agrees)",
        arguments: [
            ("1", "one", UInt64(64_146_488)),
            ("3", "three", 6_701_947),
            ("", "😊", 9_911_325),
            ("řemøťe", "çōnfįġ", 19_728_496),
            ("abcdef", "123", 9_571_542),
        ]
    )
    func knownBuckets(seed: String, id: String, bucket: UInt64) {
        #expect(PercentBucket.bucket(seed: seed, appInstanceId: id) == bucket)
    }

    @Test("the processor's SHA-256 agrees with swift-crypto, across block boundaries and split anywhere")
    func hardwareHashAgrees() throws {
        // Where the processor lacks the SHA extensions, buckets come from swift-crypto and this checks nothing.
        guard rc_sha256_available() != 0 else { return }
        var generator = SystemRandomNumberGenerator()
        var lengths = Array(0...200)
        lengths += (0..<300).map { _ in Int.random(in: 0...1_000, using: &generator) }
        for length in lengths {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let first = Int.random(in: 0...length, using: &generator)
            let second = Int.random(in: first...length, using: &generator)
            var digest = [UInt8](repeating: 0, count: 32)
            let hashed = bytes.withUnsafeBufferPointer { all in
                rc_sha256_parts(
                    all.baseAddress, first, all.baseAddress.map { $0 + first }, second - first,
                    all.baseAddress.map { $0 + second }, length - second, &digest)
            }
            #expect(hashed == 1)
            #expect(digest == Array(SHA256.hash(data: bytes)), "length \(length) split at \(first), \(second)")
        }
    }

    @Test("boundaries: <= is inclusive, > exclusive; between is (low, high]")
    func boundaries() throws {
        // seed "1", id "one" has bucket 64,146,488 = 64.146488 percent.
        let context = FetchContext(appInstanceId: "one", now: referenceNow)
        #expect(try truth("percent('1') <= 64.146488", context) == .true)
        #expect(try truth("percent('1') <= 64.146487", context) == .false)
        #expect(try truth("percent('1') > 64.146487", context) == .true)
        #expect(try truth("percent('1') > 64.146488", context) == .false)
        #expect(try truth("percent('1') < 64.146489", context) == .true)
        #expect(try truth("percent('1') >= 64.146488", context) == .true)
        #expect(try truth("percent('1') between 64.146487 and 64.146488", context) == .true)
        #expect(try truth("percent('1') between 64.146488 and 70", context) == .false)
        #expect(try truth("percent('1') between 60 and 64.146487", context) == .false)
        #expect(try truth("percent('1') between 60 and 70", context) == .true)
        // The empty seed hashes the id alone.
        let smiley = FetchContext(appInstanceId: "😊", now: referenceNow)
        #expect(try truth("percent <= 9.911325", smiley) == .true)
        #expect(try truth("percent <= 9.911324", smiley) == .false)
        #expect(try truth("percent('') <= 9.911325", smiley) == .true)
    }

    @Test("a caller's conditions over many seeds read each seed's own bucket, the first and the later ones")
    func manySeeds() throws {
        let context = FetchContext(appInstanceId: "instance-of-many-seeds", now: referenceNow)
        let seeds = (0..<12).map { "seed-\($0)" }
        func percent(_ seed: String) -> String {
            String(
                format: "%.6f", Double(PercentBucket.bucket(seed: seed, appInstanceId: "instance-of-many-seeds")) / 1e6)
        }
        // Every seed at its own bucket, each used twice (the second time from what the first stored).
        let exact = (seeds + seeds).map { "percent('\($0)') <= \(percent($0))" }.joined(separator: " && ")
        #expect(try truth(exact, context) == .true)
        // Each seed just below its bucket alone makes it false: no seed reads another's.
        for seed in seeds {
            let others = seeds.filter { $0 != seed }.map { "percent('\($0)') <= \(percent($0))" }
            let below = "percent('\(seed)') < \(percent(seed))"
            #expect(try truth((others + [below]).joined(separator: " && "), context) == .false, "\(seed)")
        }
    }

    @Test("decimal thresholds are exact")
    func thresholds() {
        #expect(PercentBucket.threshold(12.5) == 12_500_000)
        #expect(PercentBucket.threshold(0.1) == 100_000)
        #expect(PercentBucket.threshold(0.000001) == 1)
        #expect(PercentBucket.threshold(64.146488) == 64_146_488)
    }

    @Test("distribution: percent <= 10 holds for 10% ± 0.9% of 100,000 ids")
    func distribution() throws {
        let condition = try CompiledCondition(name: "ten", expression: "percent('rollout') <= 10")
        let between = try CompiledCondition(name: "band", expression: "percent('rollout') between 10 and 30")
        var ten = 0
        var band = 0
        for index in 0..<100_000 {
            let context = FetchContext(
                appInstanceId: "installation-\(index)-\(index &* 2_654_435_761)", now: referenceNow)
            if condition.evaluate(context) == .true { ten += 1 }
            if between.evaluate(context) == .true { band += 1 }
        }
        #expect(abs(ten - 10_000) <= 900, "\(ten)")
        #expect(abs(band - 20_000) <= 1_200, "\(band)")
    }
}
