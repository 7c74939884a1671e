import Foundation
import RemoteConfigCore

/// A rollout after an action, with the version the action published, if it published one.
public struct RolloutChange: Sendable {
    public let rollout: Rollout
    public let version: StoredVersion?
}
