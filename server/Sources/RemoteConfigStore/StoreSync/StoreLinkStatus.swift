import Foundation

/// How the link's syncs went.
public struct StoreLinkStatus: Sendable, Equatable {
    /// The last attempt, successful or not.
    public let lastSyncTime: Date?
    /// The version the store answered last.
    public let lastStoreVersion: String?
    /// Why the last attempt failed; nil after a success.
    public let lastError: String?
    /// Failed attempts since the last success (the backoff grows with them).
    public let consecutiveFailures: Int
    /// When the background loop syncs the link next (it is due from then on).
    public let nextSyncTime: Date
    /// The store version held back until its release is `releaseDelaySeconds` old; nil when none waits.
    public let pendingStoreVersion: String?
    /// When the held-back version may be published; nil when none waits.
    public let pendingUntil: Date?
}
