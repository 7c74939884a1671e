import Foundation

/// One sampled app instance: the context it last sent, in the fetch body's shape.
public struct InsightSample: Sendable, Equatable {
    /// `SampleHash` of its `appInstanceId`: the sample keeps the smallest.
    public let instanceHash: Int64
    /// The fetch-body-shaped JSON object it last sent (only what conditions read).
    public let contextJSON: String
    /// When a server last answered it.
    public let lastSeen: Date

    /// Creates a sample row.
    public init(instanceHash: Int64, contextJSON: String, lastSeen: Date) {
        self.instanceHash = instanceHash
        self.contextJSON = contextJSON
        self.lastSeen = lastSeen
    }
}
