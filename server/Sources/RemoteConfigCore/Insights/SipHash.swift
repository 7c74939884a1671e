/// SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012): a keyed pseudorandom
/// function with 64-bit output. Without the 128-bit key nobody can tell which inputs hash small, which is
/// what the impact sample needs and the public `InstanceHash` cannot give; it costs a few tens of
/// nanoseconds for an instance id, and allocates nothing.
public enum SipHash {
    /// SipHash-2-4 of `bytes` under `key`.
    @inlinable
    public static func hash(_ bytes: UnsafeRawBufferPointer, key: SipHashKey) -> UInt64 {
        var state = State(key: key)
        let length = bytes.count
        let whole = length & ~7
        var offset = 0
        while offset < whole {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            state.compress(word)
            offset += 8
        }
        // The last block: the remaining bytes, and the length's low byte on top.
        var last = UInt64(truncatingIfNeeded: length) << 56
        var shift: UInt64 = 0
        while offset < length {
            last |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        state.compress(last)
        return state.finish()
    }

    /// The four words of SipHash's state.
    @usableFromInline
    struct State {
        @usableFromInline var v0: UInt64
        @usableFromInline var v1: UInt64
        @usableFromInline var v2: UInt64
        @usableFromInline var v3: UInt64

        @inlinable
        init(key: SipHashKey) {
            v0 = key.k0 ^ 0x736f_6d65_7073_6575
            v1 = key.k1 ^ 0x646f_7261_6e64_6f6d
            v2 = key.k0 ^ 0x6c79_6765_6e65_7261
            v3 = key.k1 ^ 0x7465_6462_7974_6573
        }

        /// Two rounds over one 64-bit message word.
        @inlinable
        mutating func compress(_ word: UInt64) {
            v3 ^= word
            round()
            round()
            v0 ^= word
        }

        /// Four rounds after the message, folded into 64 bits.
        @inlinable
        mutating func finish() -> UInt64 {
            v2 ^= 0xff
            round()
            round()
            round()
            round()
            return v0 ^ v1 ^ v2 ^ v3
        }

        @inlinable
        mutating func round() {
            v0 &+= v1
            v1 = Self.rotate(v1, 13)
            v1 ^= v0
            v0 = Self.rotate(v0, 32)
            v2 &+= v3
            v3 = Self.rotate(v3, 16)
            v3 ^= v2
            v0 &+= v3
            v3 = Self.rotate(v3, 21)
            v3 ^= v0
            v2 &+= v1
            v1 = Self.rotate(v1, 17)
            v1 ^= v2
            v2 = Self.rotate(v2, 32)
        }

        @inlinable
        static func rotate(_ word: UInt64, _ count: UInt64) -> UInt64 {
            (word << count) | (word >> (64 - count))
        }
    }
}

/// A 128-bit SipHash key: its 16 bytes read as two little-endian words, as the reference code reads them.
/// Printed, it shows nothing of itself, so a log line that names one gives it away to nobody.
public struct SipHashKey: Sendable, Equatable, CustomStringConvertible {
    /// The first 8 bytes, little-endian.
    public let k0: UInt64
    /// The last 8 bytes, little-endian.
    public let k1: UInt64

    /// The key of these two words.
    public init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    /// The key of these 16 bytes; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        var words = (UInt64(0), UInt64(0))
        for index in 0..<8 {
            words.0 |= UInt64(bytes[index]) << (8 * UInt64(index))
            words.1 |= UInt64(bytes[index + 8]) << (8 * UInt64(index))
        }
        self.init(k0: words.0, k1: words.1)
    }

    /// Says what it is, not what it holds.
    public var description: String { "SipHashKey(redacted)" }

    /// Its 16 bytes.
    public var bytes: [UInt8] {
        (0..<16).map { index in UInt8(truncatingIfNeeded: (index < 8 ? k0 : k1) >> (8 * UInt64(index % 8))) }
    }
}
