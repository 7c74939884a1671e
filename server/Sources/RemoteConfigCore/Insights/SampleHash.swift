/// The order of the impact sample: an app instance's place is SipHash-2-4 of its `appInstanceId`'s UTF-8
/// under the database's sample key (128 random bits, made once, kept sealed like every secret), read as a
/// signed integer, and the sample keeps the smallest. A place does not depend on when or where an instance was
/// seen, so the k smallest are a uniform sample of distinct instances that every server of one database
/// computes alike and that merges by taking the k smallest again.
///
/// Keyed, so that nobody outside can choose who is sampled: with a public hash (the sketches' `InstanceHash`),
/// anyone could compute offline which instance ids rank first and fill the sample with them.
public enum SampleHash {
    /// The instance's place in the sample order under `key`.
    public static func of(_ appInstanceId: String, key: SipHashKey) -> Int64 {
        var text = appInstanceId
        return text.withUTF8 { Int64(bitPattern: SipHash.hash(UnsafeRawBufferPointer($0), key: key)) }
    }
}
