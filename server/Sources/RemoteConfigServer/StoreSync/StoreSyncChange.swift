import RemoteConfigCore
import RemoteConfigStore

/// A template a sync made: the published one with the store's values in the mapped parameters. The same for
/// every store a link follows (App Store, Google Play).
struct StoreSyncChange: Sendable {
    /// The link the sync holds (its project): every write checks it.
    let fence: SyncFence
    /// The link's `autoApprove`: with approvals required, the change request is approved at once.
    let autoApprove: Bool
    /// Validated and compiled, as a publish needs it.
    let prepared: PreparedTemplate
    /// The published version the change was made from; a publish since makes the delivery stale.
    let baseVersion: Int64
    /// Names the store version (`App Store version 2.4.0`, `Google Play version 2.4.0 (412)`).
    let description: String
    /// Who the change is recorded as: the server's store sync, or the key that asked for the sync.
    let actor: AuditActor
}
