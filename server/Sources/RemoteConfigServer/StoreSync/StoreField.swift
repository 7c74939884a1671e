import Foundation
import RemoteConfigCore

/// The fields of an App Store lookup's `results[0]` that a store link may copy into parameters.
enum StoreField: String, CaseIterable, Sendable {
    case version
    case trackViewUrl
    case minimumOsVersion
    case releaseNotes
    case currentVersionReleaseDate
}
