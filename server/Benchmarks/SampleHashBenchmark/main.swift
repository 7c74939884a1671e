// What ranking an instance for the impact sample costs per counted answer: the sketches' public hash
// (wyhash, `InstanceHash`), the sample's keyed one (SipHash-2-4, `SampleHash`), and HMAC-SHA256 cut to 64
// bits (swift-crypto), the other keyed choice, over instance ids of the shapes apps send. Run in release:
//   swift run --package-path server -c release --scratch-path server/.build-core SampleHashBenchmark [rounds]
import Crypto
import Foundation
import RemoteConfigCore

/// SplitMix64, so every run hashes the same ids.
struct Generator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// 4,096 ids of one shape: UUIDs as iOS's `identifierForVendor` gives them (36 characters), Firebase
/// installation ids (22), and short ones.
func ids(shape: Int, generator: inout Generator) -> [String] {
    (0..<4_096).map { _ in
        let a = generator.next()
        let b = generator.next()
        switch shape {
        case 0:
            return UUID(uuid: withUnsafeBytes(of: (a, b)) { $0.load(as: uuid_t.self) }).uuidString
        case 1:
            return String(Data(withUnsafeBytes(of: (a, b)) { Array($0) }).base64EncodedString().prefix(22))
        default:
            return "device-\(a % 1_000_000)"
        }
    }
}

/// Nanoseconds per call of `hash` over `ids`, the best of five passes of `rounds` rounds.
func measure(_ ids: [String], rounds: Int, _ hash: (String) -> UInt64) -> Double {
    var best = Double.infinity
    var sink: UInt64 = 0
    for _ in 0..<5 {
        let start = ContinuousClock.now
        for _ in 0..<rounds {
            for id in ids { sink ^= hash(id) }
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        best = min(best, seconds * 1e9 / Double(rounds * ids.count))
    }
    if sink == 42 { print("") }  // keeps the work from being optimized away
    return best
}

let rounds = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 200 : 200
var generator = Generator(state: 2026)
let sipKey = SipHashKey(k0: generator.next(), k1: generator.next())
let hmacKey = SymmetricKey(size: .bits128)
print("ns per id, best of 5 passes of \(rounds) × 4,096 ids")
print("shape        wyhash  SipHash-2-4  HMAC-SHA256/64")
for (shape, name) in ["UUID (36)", "FID (22)", "short"].enumerated() {
    let sample = ids(shape: shape, generator: &generator)
    let wyhash = measure(sample, rounds: rounds) { InstanceHash.of($0) }
    let sip = measure(sample, rounds: rounds) { UInt64(bitPattern: SampleHash.of($0, key: sipKey)) }
    let hmac = measure(sample, rounds: max(1, rounds / 10)) { id in
        var text = id
        return text.withUTF8 { bytes in
            let code = HMAC<SHA256>.authenticationCode(for: UnsafeRawBufferPointer(bytes), using: hmacKey)
            return code.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        }
    }
    print(
        name.padding(toLength: 12, withPad: " ", startingAt: 0)
            + String(format: "%7.1f  %11.1f  %14.1f", wyhash, sip, hmac))
}
