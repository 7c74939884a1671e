import Foundation
import NIOConcurrencyHelpers
import RemoteConfigCore
import RemoteConfigStore

/// A published template the store's values cannot go into; one sentence for `lastError`.
struct StoreSyncProblem: Error, CustomStringConvertible {
    let description: String
}
