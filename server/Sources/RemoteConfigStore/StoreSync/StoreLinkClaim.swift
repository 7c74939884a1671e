import Foundation

/// A link held by one sync, under `lease` (`Lease`): every write of the sync requires it.
public struct StoreLinkClaim: Sendable {
    public let link: StoreLink
    public let lease: Lease

    /// What the sync's writes check.
    public var fence: SyncFence { SyncFence(table: .appStore, project: link.project, lease: lease) }
}
