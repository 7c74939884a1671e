/// Where a published version came from: its `updateOrigin`, stored as the raw value.
public enum UpdateOrigin: String, Sendable, CaseIterable, Codable {
    case restAPI = "REST_API"
    case console = "CONSOLE"
    case cli = "CLI"
    case changeRequest = "CHANGE_REQUEST"
    case rollout = "ROLLOUT"
    case storeSync = "STORE_SYNC"
    /// A raise of the minimum version by the project's minimum-version policy.
    case versionPolicy = "VERSION_POLICY"
    /// Another project's published version promoted into this one (`remoteConfig:promote`).
    case promotion = "PROMOTION"
    /// Firebase's own word for an origin not known. Nothing publishes it: it is what a stored origin this
    /// server does not know reads as (one a newer server wrote, during an upgrade).
    case unspecified = "REMOTE_CONFIG_UPDATE_ORIGIN_UNSPECIFIED"

    /// The origin stored as `text`. One this server does not know reads as `unspecified` rather than failing:
    /// the column is free text, and failing would fail every read of the version, the serving cache's included.
    init(stored text: String) {
        self = Self(rawValue: text) ?? .unspecified
    }
}
