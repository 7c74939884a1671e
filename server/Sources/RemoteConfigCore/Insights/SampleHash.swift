/// The order of the impact sample: an app instance's place is `InstanceHash` of its `appInstanceId`, read as
/// a signed integer, and the sample keeps the smallest. A hash does not depend on when or where an instance
/// was seen, so the k smallest are a uniform sample of distinct instances that every server computes alike
/// and that merges by taking the k smallest again.
public enum SampleHash {
    /// The instance's place in the sample order.
    public static func of(_ appInstanceId: String) -> Int64 {
        InstanceHash.sampleKey(InstanceHash.of(appInstanceId))
    }
}
