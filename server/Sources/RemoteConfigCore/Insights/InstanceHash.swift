/// The 64-bit hash of an app instance id that the distinct-instance sketches use, computed on every counted
/// answer: wyhash's construction (64 × 64 → 128-bit multiplications folded by
/// exclusive or, with wyhash's fixed constants as secret), a few nanoseconds for an id of 36 bytes where
/// SHA-256 took a fair share of counting's budget.
///
/// The seed and constants are fixed, so every server, every process and every release hashes an id alike
/// (sketches merge across servers and hours). Its output is uniform enough for HyperLogLog
/// (`InsightsCoreTests`). Being public, anyone can compute it and choose ids by their hash: the impact
/// sample, which ids chosen for a small hash would fill, ranks instances by a keyed hash instead
/// (`SampleHash`).
///
/// Sketches stored before 2026-11-26 hashed ids with SHA-256: within a window that spans the change, an
/// instance seen on both sides counts twice in a distinct-instance estimate.
public enum InstanceHash {
    private static let secret: (UInt64, UInt64, UInt64, UInt64) = (
        0x2d35_8dcc_aa6c_78a5, 0x8bb8_4b93_962e_acc9, 0x4b33_a62e_d433_d4a3, 0x4d5a_2da5_1de1_aa47
    )

    /// The hash of `appInstanceId`'s UTF-8.
    public static func of(_ appInstanceId: String) -> UInt64 {
        var text = appInstanceId
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    /// wyhash of `bytes` with seed 0.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let length = bytes.count
        var seed = mix(secret.0, secret.1)
        var a: UInt64
        var b: UInt64
        if length <= 16 {
            if length >= 4 {
                let step = (length >> 3) << 2
                a = read4(bytes, 0) << 32 | read4(bytes, step)
                b = read4(bytes, length - 4) << 32 | read4(bytes, length - 4 - step)
            } else if length > 0 {
                a = UInt64(bytes[0]) << 16 | UInt64(bytes[length >> 1]) << 8 | UInt64(bytes[length - 1])
                b = 0
            } else {
                a = 0
                b = 0
            }
        } else {
            var offset = 0
            var remaining = length
            if remaining > 48 {
                var see1 = seed
                var see2 = seed
                repeat {
                    seed = mix(read8(bytes, offset) ^ secret.1, read8(bytes, offset + 8) ^ seed)
                    see1 = mix(read8(bytes, offset + 16) ^ secret.2, read8(bytes, offset + 24) ^ see1)
                    see2 = mix(read8(bytes, offset + 32) ^ secret.3, read8(bytes, offset + 40) ^ see2)
                    offset += 48
                    remaining -= 48
                } while remaining > 48
                seed ^= see1 ^ see2
            }
            while remaining > 16 {
                seed = mix(read8(bytes, offset) ^ secret.1, read8(bytes, offset + 8) ^ seed)
                offset += 16
                remaining -= 16
            }
            a = read8(bytes, offset + remaining - 16)
            b = read8(bytes, offset + remaining - 8)
        }
        let product = (a ^ secret.1).multipliedFullWidth(by: b ^ seed)
        return mix(product.low ^ secret.0 ^ UInt64(length), product.high ^ secret.1)
    }

    /// The 128-bit product of `a` and `b`, its halves folded by exclusive or.
    private static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }

    private static func read8(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    private static func read4(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }
}
