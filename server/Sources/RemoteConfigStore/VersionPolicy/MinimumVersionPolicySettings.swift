import Foundation

/// What an admin sets on a project's minimum-version policy: the one parameter it may raise, for one platform,
/// and the limits it stays within.
public struct MinimumVersionPolicySettings: Sendable, Equatable {
    /// How a raise reaches the template.
    public enum Action: String, Sendable, CaseIterable {
        /// A change request that people approve (the default).
        case changeRequest = "CHANGE_REQUEST"
        /// Published at once, with `updateOrigin: "VERSION_POLICY"`.
        case publish = "PUBLISH"
    }

    public var enabled: Bool
    /// `IOS`, `ANDROID` or `WEB`: whose fleet is read.
    public var platform: String
    /// The STRING parameter that holds the minimum.
    public var parameter: String
    /// The condition whose conditional value is raised; nil: the default value.
    public var condition: String?
    public var maxBlockedShare: Double
    public var minActiveInstances: Int
    /// A STRING parameter the minimum never goes above (typically `current_version`).
    public var neverAbove: String?
    /// Releases the minimum stays behind the newest version seen.
    public var keepBehindLatest: Int
    public var checkIntervalSeconds: Int
    public var action: Action

    public init(
        enabled: Bool, platform: String, parameter: String, condition: String?, maxBlockedShare: Double,
        minActiveInstances: Int, neverAbove: String?, keepBehindLatest: Int, checkIntervalSeconds: Int,
        action: Action
    ) {
        self.enabled = enabled
        self.platform = platform
        self.parameter = parameter
        self.condition = condition
        self.maxBlockedShare = maxBlockedShare
        self.minActiveInstances = minActiveInstances
        self.neverAbove = neverAbove
        self.keepBehindLatest = keepBehindLatest
        self.checkIntervalSeconds = checkIntervalSeconds
        self.action = action
    }
}
