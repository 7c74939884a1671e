import RemoteConfigVersions

/// A dotted app version, compared exactly as the server compares `app.version`: it is the server's own
/// `SemanticVersion` (from `RemoteConfigVersions`, which the server's conditions use too).
///
/// Split on `.`; each part read as JavaScript's `Number()` reads it (` 3 ` is 3, an empty part is 0); at most
/// 5 parts; missing parts are 0 (`2.1` equals `2.1.0`). Text that breaks these rules (`2.x`, `1.2-beta`, six
/// parts) is not a version: `init` returns `nil`, and the server treats any comparison with it as false.
public struct AppVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The maximum number of parts.
    public static let maximumParts = SemanticVersion.maximumParts

    /// The version as the server reads it.
    public let version: SemanticVersion

    /// The five parts, padded with zeros.
    public var parts: [Double] { version.parts }

    /// Parses a version; `nil` when the text is not a version by the rules above.
    public init?(_ text: some StringProtocol) {
        guard let version = SemanticVersion(text) else { return nil }
        self.version = version
    }

    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        lhs.version < rhs.version
    }

    /// The version with all five parts, such as `2.1.0.0.0`.
    public var description: String { version.description }

    /// The server's comparison on text: `true` only when both sides are versions and `lhs < rhs`.
    public static func isVersion(_ lhs: String, below rhs: String) -> Bool {
        guard let left = AppVersion(lhs), let right = AppVersion(rhs) else { return false }
        return left < right
    }
}
