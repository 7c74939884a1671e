import Foundation

/// The platform an app reports; the server's `device.os` conditions match it.
public enum AppPlatform: String, Sendable, Codable, CaseIterable {
    /// iOS and the other Apple platforms (`device.os == 'ios'`).
    case ios = "IOS"
    /// Android (`device.os == 'android'`).
    case android = "ANDROID"
    /// A web app (`device.os == 'web'`).
    case web = "WEB"
}

/// Who is asking: the app's identifier, platform, version and build, and the device's OS version, sent with every
/// fetch.
public struct AppIdentity: Sendable, Hashable, Codable {
    /// The app's identifier, such as a bundle identifier (`app.id` in conditions).
    public var appId: String
    /// The platform (`device.os` in conditions).
    public var platform: AppPlatform
    /// The marketing version, such as `2.1.0` (`app.version` in conditions).
    public var version: String
    /// The build number, such as `210` (`app.build` in conditions).
    public var build: String
    /// The operating system's version, such as `17.4.1` (`device.osVersion` in conditions); `nil` sends none.
    /// `checkForUpdate()` compares it with `min_os_version` to tell a device that cannot install the update.
    public var osVersion: String?

    /// Creates an identity from explicit values (the way to configure the SDK outside Apple platforms);
    /// `osVersion` defaults to the running system's (`currentOSVersion`).
    public init(
        appId: String, platform: AppPlatform, version: String, build: String,
        osVersion: String? = AppIdentity.currentOSVersion
    ) {
        self.appId = appId
        self.platform = platform
        self.version = version
        self.build = build
        self.osVersion = osVersion
    }

    /// The running system's version as `major.minor.patch` (`17.4.1`, `15.0.0`), from `ProcessInfo`.
    public static var currentOSVersion: String {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
    }

    #if canImport(Darwin)
        /// Reads the identifier, `CFBundleShortVersionString` and `CFBundleVersion` from a bundle (the main one by default).
        public static func fromBundle(_ bundle: Bundle = .main, platform: AppPlatform = .ios) -> AppIdentity {
            let info = bundle.infoDictionary ?? [:]
            return AppIdentity(
                appId: bundle.bundleIdentifier ?? "",
                platform: platform,
                version: info["CFBundleShortVersionString"] as? String ?? "",
                build: info["CFBundleVersion"] as? String ?? "",
                osVersion: currentOSVersion
            )
        }
    #endif
}

/// Facts about the device sent with a fetch; the server's country, language and time conditions read them.
public struct DeviceContext: Sendable, Hashable, Codable {
    /// ISO 3166 region code, such as `JP` (`device.country`).
    public var countryCode: String?
    /// BCP 47 language tag, such as `ja-JP` (`device.language`).
    public var languageCode: String?
    /// IANA time zone identifier, such as `Asia/Tokyo`.
    public var timeZone: String?

    /// Creates a context from explicit values; `nil` leaves the field out of the request.
    public init(countryCode: String? = nil, languageCode: String? = nil, timeZone: String? = nil) {
        self.countryCode = countryCode
        self.languageCode = languageCode
        self.timeZone = timeZone
    }

    /// The device's current region, preferred language and time zone; what the system does not know
    /// (a server with no locale reports region `001`, the world) is left out rather than sent wrong.
    public static var current: DeviceContext {
        let locale = Locale.current
        let region: String?
        let systemLanguage: String?
        // `Locale.region` and `Locale.language` are iOS 16 / macOS 13; the SDK supports iOS 15 / macOS 12, where
        // `regionCode` and `languageCode` (deprecated since) say the same.
        if #available(iOS 16, macOS 13, tvOS 16, watchOS 9, *) {
            region = locale.region?.identifier
            systemLanguage = locale.language.minimalIdentifier
        } else {
            region = locale.regionCode
            systemLanguage = locale.languageCode
        }
        let language = Locale.preferredLanguages.first ?? systemLanguage ?? ""
        let zone = TimeZone.current.identifier
        return DeviceContext(
            countryCode: region.flatMap { $0.count == 2 && $0.allSatisfy(\.isLetter) ? $0 : nil },
            languageCode: language.isEmpty || language == "und" ? nil : language,
            timeZone: zone.isEmpty ? nil : zone
        )
    }
}
