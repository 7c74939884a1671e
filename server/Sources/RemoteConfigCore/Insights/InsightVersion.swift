import RemoteConfigVersions

/// App versions as insights keep them: untrusted text from apps, so bounded in length and in number.
public enum InsightVersion {
    /// Versions beyond `maximumPerPlatform` in one project, platform and hour.
    public static let other = "(other)"
    /// A version that is missing, too long, or does not parse as one (`SemanticVersion`).
    public static let invalid = "(invalid)"
    /// Versions kept per platform per project per hour; the rest count as `other`.
    public static let maximumPerPlatform = 200
    /// Longer version texts are `invalid` (a real one is far shorter).
    public static let maximumLength = 64
    /// The platform of callers that sent none.
    public static let unknownPlatform = "UNKNOWN"

    /// The label `raw` is counted under, before the per-hour bound: the text itself when it is a version.
    public static func label(_ raw: String?) -> String {
        guard let raw, !raw.isEmpty, raw.utf8.count <= maximumLength, SemanticVersion(raw) != nil else {
            return invalid
        }
        return raw
    }

    /// Whether `label` is a version (not `other` or `invalid`).
    public static func isVersion(_ label: String) -> Bool { label != other && label != invalid }

    /// The order the routes list versions in: newest first by version order (equal versions by text),
    /// then `other`, then `invalid`.
    public static func newestFirst(_ left: String, _ right: String) -> Bool {
        let leftRank = left == invalid ? 2 : left == other ? 1 : 0
        let rightRank = right == invalid ? 2 : right == other ? 1 : 0
        if leftRank != rightRank { return leftRank < rightRank }
        guard leftRank == 0, let leftVersion = SemanticVersion(left), let rightVersion = SemanticVersion(right) else {
            return left < right
        }
        if leftVersion != rightVersion { return rightVersion < leftVersion }
        return left < right
    }
}
