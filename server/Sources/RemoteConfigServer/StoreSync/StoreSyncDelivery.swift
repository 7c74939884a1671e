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

/// What became of a change.
enum StoreSyncDelivered: Sendable {
    /// Published as this version.
    case published(StoredVersion)
    /// Proposed as a change request with this id (projects that require approval).
    case changeRequest(id: String)
}

/// Where a sync's change goes: the one seam between store sync and publishing. `PublishDelivery` publishes;
/// `ChangeRequestDelivery` (what servers use) proposes a change request instead when the project requires
/// approval. A delivery throws `TemplateStoreError.stale` when a version was published since `baseVersion`;
/// the sync then reads the template again and retries.
protocol StoreSyncDelivery: Sendable {
    func deliver(_ change: StoreSyncChange) async throws -> StoreSyncDelivered
}

/// Publishes a change through the ordinary publish path: the project's lock, the ETag check against the base
/// version, a new version with `updateOrigin: "STORE_SYNC"`, the audit event, NOTIFY to every replica, and this
/// server's cache and streams at once.
struct PublishDelivery: StoreSyncDelivery {
    let links: StoreLinkStore
    let publishing: Publishing

    func deliver(_ change: StoreSyncChange) async throws -> StoreSyncDelivered {
        let request = PublishRequest(
            templateJSON: change.prepared.storedJSON, expectedVersion: change.baseVersion,
            updateType: "INCREMENTAL_UPDATE", updateUser: change.actor.displayName, updateOrigin: "STORE_SYNC",
            description: change.description)
        let stored = try await publishing.run(change.prepared.compiled) {
            try await links.publish(change.claim, request, actor: change.actor)
        }
        return .published(stored)
    }
}
