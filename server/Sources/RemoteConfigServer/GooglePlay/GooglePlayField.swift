import RemoteConfigCore

/// The fields of a track's live release that a Google Play link may copy into parameters.
enum GooglePlayField: String, CaseIterable, Sendable {
    /// The release's `name`, when it reads as a version.
    case versionName
    /// The highest of the release's `versionCodes`.
    case versionCode
    case inAppUpdatePriority
    case userFraction
    /// The `en-US` text of `releaseNotes`, else the first.
    case releaseNotes

    /// The parameter types a field's value may go into: text into STRING, numbers into NUMBER or STRING.
    var parameterTypes: [ValueType] {
        switch self {
        case .versionName, .releaseNotes: [.string]
        case .versionCode, .inAppUpdatePriority, .userFraction: [.number, .string]
        }
    }
}
