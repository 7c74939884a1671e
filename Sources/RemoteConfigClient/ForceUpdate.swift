import Foundation

/// What the app should do about updates, from the force-update parameters.
public enum ForceUpdateDecision: Sendable, Hashable {
    /// Nothing to show.
    case upToDate
    /// A newer version exists; offer it, and let the user dismiss it (`dismissUpdate(version:)`).
    case updateAvailable(latest: String, storeURL: URL?)
    /// This version may no longer be used; block the app until it is updated.
    case updateRequired(storeURL: URL?)
}

/// The parameters the force-update helper reads, and the decision rules.
///
/// Rules, using the server's version comparison (`AppVersion`):
/// - required when `require_force_update` is true, or the app version is below `min_supported_version`;
/// - else available when the app version is below `current_version` (or `latest_version`) and the user has not
///   dismissed that version;
/// - else up to date.
///
/// A comparison with a version that does not parse is false, as on the server. So an app whose own version does not
/// parse is never required or offered an update by comparison; only an explicit `require_force_update = true` (which
/// the server can still send, for example from a `device.os` or `app.build` condition) blocks it. An unparseable
/// `min_supported_version` or `current_version` likewise never triggers anything.
public struct ForceUpdateParameters: Sendable, Hashable {
    /// The parameter holding the newest version (`current_version`).
    public static let currentVersionKey = "current_version"
    /// Read when `current_version` is absent or empty (`latest_version`).
    public static let latestVersionKey = "latest_version"
    /// The parameter that forces an update when true (`require_force_update`).
    public static let requireForceUpdateKey = "require_force_update"
    /// The parameter holding the oldest version still allowed (`min_supported_version`).
    public static let minSupportedVersionKey = "min_supported_version"
    /// The parameter holding the store page (`app_store_url`).
    public static let appStoreURLKey = "app_store_url"

    /// The newest version, offered as an optional update.
    public var currentVersion: String?
    /// Whether the update is mandatory regardless of versions.
    public var requireForceUpdate: Bool
    /// Versions below this one must update.
    public var minSupportedVersion: String?
    /// Where to send the user.
    public var storeURL: URL?

    /// Creates parameters from explicit values.
    public init(currentVersion: String?, requireForceUpdate: Bool, minSupportedVersion: String?, storeURL: URL?) {
        self.currentVersion = currentVersion
        self.requireForceUpdate = requireForceUpdate
        self.minSupportedVersion = minSupportedVersion
        self.storeURL = storeURL
    }

    /// The decision for `appVersion`, given the optional-update versions the user dismissed.
    public func decision(appVersion: String, dismissedVersions: Set<String> = []) -> ForceUpdateDecision {
        if requireForceUpdate { return .updateRequired(storeURL: storeURL) }
        if let minSupportedVersion, AppVersion.isVersion(appVersion, below: minSupportedVersion) {
            return .updateRequired(storeURL: storeURL)
        }
        guard let latest = currentVersion, AppVersion.isVersion(appVersion, below: latest) else { return .upToDate }
        if dismissedVersions.contains(where: { Self.sameVersion($0, latest) }) { return .upToDate }
        return .updateAvailable(latest: latest, storeURL: storeURL)
    }

    /// Equal as versions (`2.1` and `2.1.0`), or as text when either does not parse.
    static func sameVersion(_ lhs: String, _ rhs: String) -> Bool {
        if let left = AppVersion(lhs), let right = AppVersion(rhs) { return left == right }
        return lhs == rhs
    }
}

extension RemoteConfig {
    /// The force-update parameters from the active values (falling back to in-app defaults).
    public var forceUpdateParameters: ForceUpdateParameters {
        func text(_ key: String) -> String? {
            let value = configValue(forKey: key).stringValue.trimmingCharacters(in: .whitespacesAndNewlines)
            return value.isEmpty ? nil : value
        }
        return ForceUpdateParameters(
            currentVersion: text(ForceUpdateParameters.currentVersionKey)
                ?? text(ForceUpdateParameters.latestVersionKey),
            requireForceUpdate: configValue(forKey: ForceUpdateParameters.requireForceUpdateKey).boolValue,
            minSupportedVersion: text(ForceUpdateParameters.minSupportedVersionKey),
            storeURL: text(ForceUpdateParameters.appStoreURLKey).flatMap { URL(string: $0) }
        )
    }

    /// Decides, from the active values, whether this app version (`app.version` unless given) must or may update.
    public func checkForUpdate(appVersion: String? = nil) -> ForceUpdateDecision {
        let dismissed = state.withLock { Set($0.persisted.dismissedUpdateVersions) }
        return forceUpdateParameters.decision(appVersion: appVersion ?? app.version, dismissedVersions: dismissed)
    }

    /// Remembers (across launches) that the user dismissed the optional update to `version`; it is not offered again.
    /// A required update is always reported.
    public func dismissUpdate(version: String) {
        state.withLock { state in
            guard !state.persisted.dismissedUpdateVersions.contains(version) else { return }
            state.persisted.dismissedUpdateVersions.append(version)
            stateFile.save(state.persisted)
        }
    }
}
