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

/// A custom signal or user property value: JSON sends a string or a number.
public enum SignalValue: Sendable, Hashable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral
{
    case string(String)
    case number(Double)

    /// Creates a string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// Creates a number value.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// Creates a number value.
    public init(floatLiteral value: Double) { self = .number(value) }

    /// Decodes a JSON string or number.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// Encodes as a JSON string or number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        }
    }

    /// The text that string methods and version comparisons see; `3` for the number 3.
    public var text: String {
        switch self {
        case .string(let text): return text
        case .number(let number):
            if number == number.rounded(), abs(number) < 9_007_199_254_740_992 { return String(Int64(number)) }
            return String(number)
        }
    }

    /// The number that numeric comparisons see: the number, or a string read as JavaScript's `Number()`
    /// reads it (as Firebase's evaluator does); `nil` where that is NaN.
    public var number: Double? {
        switch self {
        case .number(let number): return number
        case .string(let text): return JSNumber.parse(text)
        }
    }
}

/// The three outcomes of evaluating a condition (SQL-style logic; unknown does not match).
public enum ConditionTruth: Sendable, Hashable {
    case `true`
    case `false`
    /// An input the condition needs was not sent.
    case unknown

    /// Whether the condition selects the caller: only `.true` does.
    public var matches: Bool { self == .true }

    static func from(_ flag: Bool) -> ConditionTruth { flag ? .true : .false }
}
