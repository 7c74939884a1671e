import RemoteConfigCore
import RemoteConfigStore

/// Where a sync's change goes: the one seam between store sync and publishing. `PublishDelivery` publishes;
/// `ChangeRequestDelivery` (what servers use) proposes a change request instead when the project requires
/// approval. A delivery throws `TemplateStoreError.stale` when a version was published since `baseVersion`;
/// the sync then reads the template again and retries.
protocol StoreSyncDelivery: Sendable {
    func deliver(_ change: StoreSyncChange) async throws -> StoreSyncDelivered
}
