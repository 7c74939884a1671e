import Crypto

/// The order of the impact sample: an app instance's place is the first 8 bytes of SHA-256 of its
/// `appInstanceId`, read as a big-endian signed integer, and the sample keeps the smallest. A hash does not
/// depend on when or where an instance was seen, so the k smallest are a uniform sample of distinct instances
/// that every server computes alike and that merges by taking the k smallest again.
public enum SampleHash {
    /// The instance's place in the sample order.
    public static func of(_ appInstanceId: String) -> Int64 {
        let digest = SHA256.hash(data: Array(appInstanceId.utf8))
        return digest.withUnsafeBytes { bytes in
            var value: UInt64 = 0
            for index in 0..<8 { value = value << 8 | UInt64(bytes[index]) }
            return Int64(bitPattern: value)
        }
    }
}
