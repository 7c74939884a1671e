import Foundation

/// What the app should do about updates, from the force-update parameters.
public enum ForceUpdateDecision: Sendable, Hashable {
    /// Nothing to show.
    case upToDate
    /// A newer version exists; offer it, and let the user dismiss it (`dismissUpdate(version:)`).
    case updateAvailable(latest: String, storeURL: URL?)
    /// This version may no longer be used; block the app until it is updated.
    case updateRequired(storeURL: URL?)
    /// An update is required or available, but `latest` needs `minimumOS` and the device runs an older OS: the store
    /// has nothing it can install. Tell the user the device is no longer supported instead of sending them to the
    /// store. `latest` is `nil` when the template names no `current_version`.
    case deviceUnsupported(latest: String?, minimumOS: String)
}

/// The parameter names the force-update helper reads; the defaults are the names docs/sdk.md documents.
///
/// An app whose template already uses other names passes its own, once (`remoteConfig.forceUpdateKeys = …`) or per
/// call (`checkForUpdate(keys:)`).
public struct ForceUpdateKeys: Sendable, Hashable {
    /// A boolean parameter that forces the update when true (`require_force_update`).
    public var requireForceUpdate: String
    /// The oldest version still allowed (`min_supported_version`); `nil` to not read one.
    public var minSupportedVersion: String?
    /// The newest version, offered as an optional update (`current_version`).
    public var currentVersion: String
    /// Read when `currentVersion` is absent or empty (`latest_version`); `nil` for no fallback.
    public var fallbackCurrentVersion: String?
    /// The store page passed along as `storeURL` (`app_store_url`).
    public var appStoreURL: String
    /// The oldest OS version the latest version runs on (`min_os_version`); `nil` to not read one.
    public var minimumOSVersion: String?

    /// Creates a set of names; each one left out keeps today's name.
    public init(
        requireForceUpdate: String = "require_force_update",
        minSupportedVersion: String? = "min_supported_version",
        currentVersion: String = "current_version",
        fallbackCurrentVersion: String? = "latest_version",
        appStoreURL: String = "app_store_url",
        minimumOSVersion: String? = "min_os_version"
    ) {
        self.requireForceUpdate = requireForceUpdate
        self.minSupportedVersion = minSupportedVersion
        self.currentVersion = currentVersion
        self.fallbackCurrentVersion = fallbackCurrentVersion
        self.appStoreURL = appStoreURL
        self.minimumOSVersion = minimumOSVersion
    }

    /// The documented names: `require_force_update`, `min_supported_version`, `current_version` (or
    /// `latest_version`), `app_store_url`, `min_os_version`.
    public static let standard = ForceUpdateKeys()
}

/// The parameters the force-update helper reads, and the decision rules.
///
/// Rules, using the server's version comparison (`AppVersion`):
/// - required when `require_force_update` is true, or the app version is below `min_supported_version`;
/// - else available when the app version is below `current_version` (or `latest_version`) and the user has not
///   dismissed that version;
/// - else up to date;
/// - and where an update is required or available but the device's OS is below `min_os_version`, the device is
///   unsupported (`.deviceUnsupported`): the store has nothing it can install.
///
/// A comparison with a version that does not parse is false, as on the server. So an app whose own version does not
/// parse is never required or offered an update by comparison; only an explicit `require_force_update = true` (which
/// the server can still send, for example from a `device.os` or `app.build` condition) blocks it. An unparseable
/// `min_supported_version` or `current_version` likewise never triggers anything, and an OS version or
/// `min_os_version` that does not parse never makes a device unsupported.
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
    /// The parameter holding the oldest OS version the latest version runs on (`min_os_version`).
    public static let minimumOSVersionKey = "min_os_version"

    /// The newest version, offered as an optional update.
    public var currentVersion: String?
    /// Whether the update is mandatory regardless of versions.
    public var requireForceUpdate: Bool
    /// Versions below this one must update.
    public var minSupportedVersion: String?
    /// Where to send the user.
    public var storeURL: URL?
    /// The oldest OS version the latest version runs on.
    public var minimumOSVersion: String?

    /// Creates parameters from explicit values.
    public init(
        currentVersion: String?, requireForceUpdate: Bool, minSupportedVersion: String?, storeURL: URL?,
        minimumOSVersion: String? = nil
    ) {
        self.currentVersion = currentVersion
        self.requireForceUpdate = requireForceUpdate
        self.minSupportedVersion = minSupportedVersion
        self.storeURL = storeURL
        self.minimumOSVersion = minimumOSVersion
    }

    /// The decision for `appVersion` on a device running `osVersion` (`nil`: unknown, never unsupported), given the
    /// optional-update versions the user dismissed.
    public func decision(
        appVersion: String, osVersion: String? = nil, dismissedVersions: Set<String> = []
    ) -> ForceUpdateDecision {
        decision(appVersion: appVersion, osVersion: osVersion) { latest in
            !dismissedVersions.contains(where: { Self.sameVersion($0, latest) })
        }
    }

    /// The decision, where `mayPrompt` says whether an optional update to a version may be shown now.
    func decision(
        appVersion: String, osVersion: String?, mayPrompt: (String) -> Bool
    ) -> ForceUpdateDecision {
        let required =
            requireForceUpdate
            || minSupportedVersion.map { AppVersion.isVersion(appVersion, below: $0) } == true
        // Where the store has nothing this device can install, that is what to say instead of either update.
        var unsupported: ForceUpdateDecision?
        if let osVersion, let minimumOSVersion, AppVersion.isVersion(osVersion, below: minimumOSVersion) {
            unsupported = .deviceUnsupported(latest: currentVersion, minimumOS: minimumOSVersion)
        }
        if required { return unsupported ?? .updateRequired(storeURL: storeURL) }
        guard let latest = currentVersion, AppVersion.isVersion(appVersion, below: latest), mayPrompt(latest) else {
            return .upToDate
        }
        return unsupported ?? .updateAvailable(latest: latest, storeURL: storeURL)
    }

    /// Equal as versions (`2.1` and `2.1.0`), or as text when either does not parse.
    static func sameVersion(_ lhs: String, _ rhs: String) -> Bool {
        if let left = AppVersion(lhs), let right = AppVersion(rhs) { return left == right }
        return lhs == rhs
    }
}

extension RemoteConfig {
    /// The parameter names `checkForUpdate()` reads when none are passed; also the flag `configValue(forKey:)`
    /// leaves out when it was fetched by another app version. Defaults to `ForceUpdateKeys.standard`.
    public var forceUpdateKeys: ForceUpdateKeys {
        get { state.withLock { $0.forceUpdateKeys } }
        set { state.withLock { $0.forceUpdateKeys = newValue } }
    }

    /// The force-update parameters from the active values (falling back to in-app defaults), under `forceUpdateKeys`.
    public var forceUpdateParameters: ForceUpdateParameters {
        forceUpdateParameters(keys: nil, appVersion: nil)
    }

    /// The force-update parameters under `keys` (by default `forceUpdateKeys`). The flag counts only when the
    /// server decided it for `appVersion` (by default this app's version) and this build.
    public func forceUpdateParameters(keys: ForceUpdateKeys?, appVersion: String? = nil) -> ForceUpdateParameters {
        state.withLock { state in
            let keys = keys ?? state.forceUpdateKeys
            func text(_ key: String?) -> String? {
                guard let key else { return nil }
                let raw = state.persisted.active?.entries[key] ?? state.defaults[key] ?? ""
                let value = raw.trimmingCharacters(in: .whitespacesAndNewlines)
                return value.isEmpty ? nil : value
            }
            let flag =
                activeRemoteText(
                    forKey: keys.requireForceUpdate, in: state, flagKey: keys.requireForceUpdate, appVersion: appVersion
                )
                ?? state.defaults[keys.requireForceUpdate] ?? ""
            return ForceUpdateParameters(
                currentVersion: text(keys.currentVersion) ?? text(keys.fallbackCurrentVersion),
                requireForceUpdate: RemoteConfigValue(stringValue: flag, source: .remote).boolValue,
                minSupportedVersion: text(keys.minSupportedVersion),
                storeURL: text(keys.appStoreURL).flatMap { URL(string: $0) },
                minimumOSVersion: text(keys.minimumOSVersion)
            )
        }
    }

    /// Decides, from the active values, whether this app version (`app.version` unless given) must or may update,
    /// or whether this device (`app.osVersion`) is too old for the latest version.
    ///
    /// `keys` names the parameters to read (by default `forceUpdateKeys`). A `require_force_update` the server decided
    /// for another app version or build (values fetched before the app was updated) is not applied. An optional
    /// update (and a device too old for it) is reported only when `policy` (by default `updatePromptPolicy`) allows
    /// showing it now and the user has not skipped that version; a required one always is.
    public func checkForUpdate(
        appVersion: String? = nil, keys: ForceUpdateKeys? = nil, policy: UpdatePromptPolicy? = nil
    ) -> ForceUpdateDecision {
        let parameters = forceUpdateParameters(keys: keys, appVersion: appVersion)
        let (dismissed, lastPrompt, policy) = state.withLock {
            ($0.persisted.dismissedUpdateVersions, $0.persisted.lastUpdatePrompt, policy ?? $0.updatePromptPolicy)
        }
        let now = now()
        return parameters.decision(appVersion: appVersion ?? app.version, osVersion: app.osVersion) { latest in
            !dismissed.contains(where: { ForceUpdateParameters.sameVersion($0, latest) })
                && policy.allowsPrompt(for: latest, at: now, lastPrompt: lastPrompt)
        }
    }

    /// "Skip this version": remembers (across launches) that the user dismissed the optional update to `version`; it
    /// is not offered again, whatever `updatePromptPolicy` says. A required update is always reported.
    public func dismissUpdate(version: String) {
        state.withLock { state in
            guard !state.persisted.dismissedUpdateVersions.contains(version) else { return }
            state.persisted.dismissedUpdateVersions.append(version)
            stateFile.save(state.persisted)
        }
    }

    /// When `checkForUpdate()` reports an optional update again after the app showed it (by default
    /// `.everyLaunch`); a required update is always reported.
    public var updatePromptPolicy: UpdatePromptPolicy {
        get { state.withLock { $0.updatePromptPolicy } }
        set { state.withLock { $0.updatePromptPolicy = newValue } }
    }

    /// Call when the app shows the optional update to `version` (its `latest`), so `updatePromptPolicy` counts from
    /// now; remembered across launches. A user who answers "Later" needs nothing more.
    public func updatePromptShown(version: String) {
        state.withLock { state in
            state.persisted.lastUpdatePrompt = UpdatePromptRecord(version: version, shownAt: now())
            stateFile.save(state.persisted)
        }
    }

    /// The optional-update versions the user dismissed, oldest first.
    public var dismissedUpdateVersions: [String] { state.withLock { $0.persisted.dismissedUpdateVersions } }

    /// Forgets dismissed versions so they are offered again: `version` alone (`2.3` also forgets `2.3.0`), or all
    /// of them when `nil` (for a "show me updates again" setting, or a test).
    public func clearDismissedUpdates(version: String? = nil) {
        state.withLock { state in
            if let version {
                state.persisted.dismissedUpdateVersions.removeAll { ForceUpdateParameters.sameVersion($0, version) }
            } else {
                state.persisted.dismissedUpdateVersions.removeAll()
            }
            stateFile.save(state.persisted)
        }
    }
}
