import Foundation
import RemoteConfigVersions

/// What a caller told us in a fetch, plus the server's clock: the input of condition evaluation.
///
/// `nil` (or an absent key) means "not sent"; atoms reading it are unknown, never matched.
public struct FetchContext: Sendable, Hashable {
    /// The app installation's id (`appInstanceId`); drives `percent` and `app.instanceId in`.
    public var appInstanceId: String?
    /// The app's bundle or package id, for `app.id`.
    public var appId: String?
    /// `IOS`, `ANDROID` or `WEB`, for `device.os`.
    public var platform: Platform?
    /// The marketing version, e.g. `2.1.0`, for `app.version`.
    public var appVersion: String?
    /// The build number, e.g. `210`, for `app.build`.
    public var appBuild: String?
    /// The device's operating system version, e.g. `17.4.1`, for `device.osVersion`.
    public var osVersion: String?
    /// ISO 3166 country code, any case, for `device.country`.
    public var countryCode: String?
    /// BCP 47 language tag (`ja-JP`, `en_GB`, `pt`), any case, for `device.language`.
    public var languageCode: String?
    /// `customSignals` of the request, for `app.customSignal['k']`.
    public var customSignals: [String: SignalValue]
    /// User properties, for `app.userProperty['k']`.
    public var userProperties: [String: SignalValue]
    /// When the app was first opened, for `app.firstOpenTimestamp`.
    public var firstOpenTime: Date?
    /// The server's current time, for `dateTime`; a parameter so tests control the clock.
    public var now: Date

    /// Creates a context; everything not given counts as not sent.
    public init(
        appInstanceId: String? = nil,
        appId: String? = nil,
        platform: Platform? = nil,
        appVersion: String? = nil,
        appBuild: String? = nil,
        countryCode: String? = nil,
        languageCode: String? = nil,
        customSignals: [String: SignalValue] = [:],
        userProperties: [String: SignalValue] = [:],
        firstOpenTime: Date? = nil,
        osVersion: String? = nil,
        now: Date = Date()
    ) {
        self.appInstanceId = appInstanceId
        self.appId = appId
        self.platform = platform
        self.appVersion = appVersion
        self.appBuild = appBuild
        self.countryCode = countryCode
        self.languageCode = languageCode
        self.customSignals = customSignals
        self.userProperties = userProperties
        self.firstOpenTime = firstOpenTime
        self.osVersion = osVersion
        self.now = now
    }
}
