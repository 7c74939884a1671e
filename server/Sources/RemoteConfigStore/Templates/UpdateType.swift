/// How a published version relates to the one before it: its `updateType`, stored as the raw value.
public enum UpdateType: String, Sendable, CaseIterable, Codable {
    /// Published over the version the publisher last saw.
    case incrementalUpdate = "INCREMENTAL_UPDATE"
    /// Published whatever the latest version was.
    case forcedUpdate = "FORCED_UPDATE"
    /// A copy of an earlier version (`rollbackSource`).
    case rollback = "ROLLBACK"
    /// Firebase's own word for a type not known. Nothing publishes it (the column's CHECK refuses it): it is
    /// what a stored type this server does not know reads as (one a later migration allowed, during an upgrade).
    case unspecified = "REMOTE_CONFIG_UPDATE_TYPE_UNSPECIFIED"

    /// The type stored as `text`. One this server does not know reads as `unspecified` rather than failing
    /// every read of the version, the serving cache's included.
    init(stored text: String) {
        self = Self(rawValue: text) ?? .unspecified
    }
}
