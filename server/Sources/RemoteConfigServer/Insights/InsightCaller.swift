import RemoteConfigCore

/// What counting needs of one client call: its context and its instance hash.
struct InsightCaller: Sendable {
    var context: FetchContext
    /// `InstanceHash` of the instance id; nil when none was sent or counting is off.
    var hash: UInt64?

    /// The caller of `context`; hashes its instance id only when `counting`.
    init(_ context: FetchContext, counting: Bool) {
        self.context = context
        self.hash = counting ? context.appInstanceId.map(InstanceHash.of) : nil
    }
}
