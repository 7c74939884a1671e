import CSHA256
import Crypto

/// The caller's percentile bucket, the same one Firebase's server-side evaluator computes.
public enum PercentBucket {
    /// Buckets per percent: a bucket is in `0..<100 * bucketsPerPercent`.
    public static let bucketsPerPercent: UInt64 = 1_000_000
    /// The number of buckets, 100,000,000.
    public static let bucketCount: UInt64 = 100 * bucketsPerPercent

    /// SHA-256 of UTF-8 `seed + "." + appInstanceId` (just `appInstanceId` when the seed is
    /// empty), read as a big-endian unsigned integer, modulo 100,000,000.
    public static func bucket(seed: String, appInstanceId: String) -> UInt64 {
        if hashesInHardware, let bucket = hardwareBucket(seed: seed, appInstanceId: appInstanceId) { return bucket }
        // Straight from the strings' UTF-8 storage into the hash, and the digest read in place: copying them
        // into arrays cost several times the hashing itself on the fetch path.
        var hasher = SHA256()
        if !seed.isEmpty {
            update(&hasher, seed)
            withUnsafeBytes(of: UInt8(ascii: ".")) { hasher.update(bufferPointer: $0) }
        }
        update(&hasher, appInstanceId)
        return hasher.finalize().withUnsafeBytes { bucket(ofDigest: $0) }
    }

    /// Whether this processor has the SHA extensions `CSHA256` uses: a caller's buckets are several hashes of a
    /// few dozen bytes per fetch, and swift-crypto's wrappers around each cost about twice the hashing itself.
    private static let hashesInHardware = rc_sha256_available() != 0

    private static func hardwareBucket(seed: String, appInstanceId: String) -> UInt64? {
        var seed = seed
        var appInstanceId = appInstanceId
        var separator = UInt8(ascii: ".")
        let separatorCount = seed.isEmpty ? 0 : 1
        return withUnsafeTemporaryAllocation(byteCount: 32, alignment: 8) { digest -> UInt64? in
            let digestBytes = digest.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let hashed = seed.withUTF8 { seedBytes in
                appInstanceId.withUTF8 { idBytes in
                    withUnsafePointer(to: &separator) { separatorByte in
                        rc_sha256_parts(
                            seedBytes.baseAddress, seedBytes.count, separatorByte, separatorCount, idBytes.baseAddress,
                            idBytes.count, digestBytes)
                    }
                }
            }
            return hashed != 0 ? bucket(ofDigest: UnsafeRawBufferPointer(digest)) : nil
        }
    }

    /// A 256-bit digest, big-endian, modulo `bucketCount`.
    private static func bucket(ofDigest digest: UnsafeRawBufferPointer) -> UInt64 {
        // (a * 2^32 + b) mod m, four bytes at a time (m < 2^27, so nothing overflows): the 256-bit number is
        // never materialised.
        var remainder: UInt64 = 0
        for offset in stride(from: 0, to: digest.count, by: 4) {
            let word = digest.loadUnaligned(fromByteOffset: offset, as: UInt32.self).bigEndian
            remainder = (remainder << 32 | UInt64(word)) % bucketCount
        }
        return remainder
    }

    private static func update(_ hasher: inout SHA256, _ text: String) {
        var text = text
        text.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
    }

    /// Whether a bucket satisfies a `percent` range (N percent is the bucket N × 1,000,000).
    public static func contains(_ bucket: UInt64, _ range: PercentRange) -> Bool {
        let value = Double(bucket)
        switch range {
        case .compare(let op, let percent): return op.holds(value, threshold(percent))
        case .between(let low, let high): return value > threshold(low) && value <= threshold(high)
        }
    }

    /// N percent in buckets; rounded to 1/1000 of a bucket so `0.1` is exactly 100,000.
    static func threshold(_ percent: Double) -> Double {
        (percent * Double(bucketsPerPercent) * 1000).rounded() / 1000
    }
}
