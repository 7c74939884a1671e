import RemoteConfigCore
import RemoteConfigStore

/// Publishes a change through the ordinary publish path: the project's lock, the ETag check against the base
/// version, a new version with `updateOrigin: "STORE_SYNC"`, the audit event, NOTIFY to every replica, and this
/// server's cache and streams at once.
struct PublishDelivery: StoreSyncDelivery {
    let fences: SyncFences
    let publishing: Publishing

    func deliver(_ change: StoreSyncChange) async throws -> StoreSyncDelivered {
        let request = PublishRequest(
            templateJSON: change.prepared.storedJSON, expectedVersion: change.baseVersion,
            updateType: .incrementalUpdate, updateUser: change.actor.updateUser, updateOrigin: .storeSync,
            description: change.description)
        let stored = try await fences.publish(change.fence, request, actor: change.actor)
        await publishing.announce(stored, prepared: change.prepared)
        return .published(stored)
    }
}
