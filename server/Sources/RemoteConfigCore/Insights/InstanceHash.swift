import Crypto

/// The 64-bit hash of an app instance id that both the distinct-instance sketches and the impact sample use:
/// the first 8 bytes of SHA-256 of its UTF-8, big-endian. A cryptographic hash, so no app can choose ids
/// that crowd one register or the sample.
public enum InstanceHash {
    /// The hash of `appInstanceId`.
    public static func of(_ appInstanceId: String) -> UInt64 {
        var utf8 = appInstanceId
        return utf8.withUTF8 { bytes in
            let digest = SHA256.hash(data: bytes)
            return digest.withUnsafeBytes { raw in
                var value: UInt64 = 0
                for index in 0..<8 { value = value << 8 | UInt64(raw[index]) }
                return value
            }
        }
    }

    /// The hash as the database stores it and the sample orders it: the same 64 bits as a signed `bigint`.
    /// The sample keeps the smallest of these, which is as uniform a choice as the smallest unsigned ones.
    public static func sampleKey(_ hash: UInt64) -> Int64 { Int64(bitPattern: hash) }
}
