import RemoteConfigCore
import RemoteConfigStore

/// A template a sync made: the published one with the store's values in the mapped parameters.
struct StoreSyncChange: Sendable {
    /// The link as the sync holds it (its project, its `autoApprove`; the claim fences every write).
    let claim: StoreLinkClaim
    /// Validated and compiled, as a publish needs it.
    let prepared: PreparedTemplate
    /// The published version the change was made from; a publish since makes the delivery stale.
    let baseVersion: Int64
    /// Names the store version (`App Store version 2.4.0`).
    let description: String
    /// Who the change is recorded as: the server's store sync, or the key that asked for the sync.
    let actor: AuditActor
}
