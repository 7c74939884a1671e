import Foundation
import RemoteConfigCore

/// The listing an App Store lookup answered: the mappable fields it had, as strings.
struct StoreListing: Sendable, Equatable {
    /// `version`, which every listing has.
    let version: String
    let fields: [StoreField: String]
}
