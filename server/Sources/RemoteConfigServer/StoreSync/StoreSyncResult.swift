import Foundation
import NIOConcurrencyHelpers
import RemoteConfigCore
import RemoteConfigStore

/// What one sync did, as `:run` answers it.
struct StoreSyncResult: Sendable {
    enum Outcome: Sendable {
        case published(versionNumber: Int64)
        case changeRequest(id: String)
        case unchanged
        /// The store's version is held back until its release is old enough.
        case pending(version: String, until: Date)
        case failed(String)
    }

    /// The link with its status after the sync.
    let link: StoreLink
    let outcome: Outcome
}
