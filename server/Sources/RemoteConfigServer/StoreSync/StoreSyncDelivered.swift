import RemoteConfigCore
import RemoteConfigStore

/// What became of a change.
enum StoreSyncDelivered: Sendable {
    /// Published as this version.
    case published(StoredVersion)
    /// Proposed as a change request with this id (projects that require approval).
    case changeRequest(id: String)
}
