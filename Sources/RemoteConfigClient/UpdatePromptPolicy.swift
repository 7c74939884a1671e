import Foundation

/// When an optional update is shown again after the app showed it: an alert on every launch is a nag users learn
/// to hate, so most apps pick `.daily` or `.weekly`.
///
/// The wait counts from `RemoteConfig.updatePromptShown(version:)` and applies to that version only: a newer
/// `current_version` is news, and is shown at once. A version the user chose to skip
/// (`RemoteConfig.dismissUpdate(version:)`) is never shown again, whatever the policy. A required update
/// (`.updateRequired`, or `.deviceUnsupported` for a blocked version) is always shown.
public struct UpdatePromptPolicy: Sendable, Hashable {
    /// The least time between two prompts for the same optional update, in seconds; 0 shows it every time.
    public var interval: TimeInterval

    /// Shows the optional update at every check (the app checks once per launch).
    public static let everyLaunch = UpdatePromptPolicy(interval: 0)
    /// Shows the optional update at most once a day.
    public static let daily = UpdatePromptPolicy(interval: 86_400)
    /// Shows the optional update at most once a week.
    public static let weekly = UpdatePromptPolicy(interval: 7 * 86_400)

    /// Shows the optional update at most once per `interval` seconds.
    public static func every(_ interval: TimeInterval) -> UpdatePromptPolicy {
        UpdatePromptPolicy(interval: interval)
    }

    /// Creates a policy; a negative interval counts as 0.
    public init(interval: TimeInterval) {
        self.interval = max(0, interval)
    }

    /// Whether an optional update to `version` may be shown at `now`, given the last prompt the app reported.
    func allowsPrompt(for version: String, at now: Date, lastPrompt: UpdatePromptRecord?) -> Bool {
        guard let lastPrompt, ForceUpdateParameters.sameVersion(lastPrompt.version, version) else { return true }
        // A clock set back before the last prompt must not silence the update for as long as it was set back.
        guard now >= lastPrompt.shownAt else { return true }
        return now.timeIntervalSince(lastPrompt.shownAt) >= interval
    }
}

/// The last optional update prompt the app showed, kept across launches.
struct UpdatePromptRecord: Codable, Hashable, Sendable {
    /// The version the prompt offered.
    var version: String
    /// When it was shown.
    var shownAt: Date
}
