import Foundation
import RemoteConfigCore

/// A rollout just created, with its halt token (shown only now) and the version that started it, if any.
public struct CreatedRollout: Sendable {
    public let rollout: Rollout
    public let haltToken: String
    /// The first step's version; nil when the project requires approval (a change request carries it).
    public let version: StoredVersion?
}
