import Foundation

/// The body of `PUT …/minimumVersionPolicy`. `platform` is required; an absent field takes its default
/// (`enabled` true, `min_supported_version`, no condition, 1%, 1,000 instances, no `neverAbove`, 0 releases
/// behind, a day between checks, `CHANGE_REQUEST`).
///
/// Decoding checks every field and reports every problem at once (`FieldProblems`). The status members a read
/// answers may be sent back unchanged and are ignored; any other member is refused.
public struct MinimumVersionPolicyRequest: Codable, Sendable, Equatable {
    public var enabled: Bool?
    public var platform: String
    public var parameter: String?
    public var condition: String?
    public var maxBlockedShare: Double?
    public var minActiveInstances: Int?
    public var neverAbove: String?
    public var keepBehindLatest: Int?
    public var checkIntervalSeconds: Int?
    public var action: String?

    public static let defaultParameter = "min_supported_version"
    public static let defaultMaxBlockedShare = 0.01
    public static let defaultMinActiveInstances = 1000
    public static let defaultCheckInterval = 86_400
    public static let minimumInterval = 60
    /// Thirty days, as a store link's longest interval.
    public static let maximumInterval = 30 * 24 * 3600
    public static let maximumKeepBehind = 1000
    public static let actions = ["CHANGE_REQUEST", "PUBLISH"]
    public static let platforms = ["IOS", "ANDROID", "WEB"]

    public init(
        enabled: Bool? = nil, platform: String, parameter: String? = nil, condition: String? = nil,
        maxBlockedShare: Double? = nil, minActiveInstances: Int? = nil, neverAbove: String? = nil,
        keepBehindLatest: Int? = nil, checkIntervalSeconds: Int? = nil, action: String? = nil
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

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case enabled, platform, parameter, condition, maxBlockedShare, minActiveInstances, neverAbove
        case keepBehindLatest, checkIntervalSeconds, action
    }

    /// The members a client may send back unchanged from a read.
    static let statusFields: Set<String> = [
        "lastCheckTime", "lastResult", "lastRecommendation", "lastDetail", "lastChangeRequest", "nextCheckTime",
        "updateTime",
    ]

    public init(from decoder: any Decoder) throws {
        var problems = FieldProblems(summary: "the minimum version policy is not valid")
        let settings = Set(CodingKeys.allCases.map(\.rawValue))
        for key in try decoder.container(keyedBy: AnyKey.self).allKeys
        where !settings.contains(key.stringValue) && !Self.statusFields.contains(key.stringValue) {
            problems.add(
                key.stringValue, "UNKNOWN_FIELD", "\(key.stringValue) is not a field of a minimum version policy")
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        do {
            enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled)
        } catch {
            enabled = nil
            problems.add("enabled", "NOT_A_BOOLEAN", "enabled must be true or false")
        }
        let platform = try? container.decodeIfPresent(String.self, forKey: .platform)
        if let platform, Self.platforms.contains(platform) {
            self.platform = platform
        } else {
            self.platform = ""
            problems.add(
                "platform", platform == nil ? "REQUIRED" : "INVALID_PLATFORM", "platform must be IOS, ANDROID or WEB")
        }
        parameter = Self.name(container, .parameter, &problems)
        condition = Self.name(container, .condition, &problems)
        neverAbove = Self.name(container, .neverAbove, &problems)
        do {
            maxBlockedShare = try container.decodeIfPresent(Double.self, forKey: .maxBlockedShare)
            if let share = maxBlockedShare, !(share.isFinite && share >= 0 && share <= 1) { throw Invalid() }
        } catch {
            maxBlockedShare = nil
            problems.add("maxBlockedShare", "INVALID_SHARE", "maxBlockedShare must be a number from 0 to 1")
        }
        minActiveInstances = Self.whole(
            container, .minActiveInstances, 0...Int(Int32.max), "a whole number of instances, 0 or more", &problems)
        keepBehindLatest = Self.whole(
            container, .keepBehindLatest, 0...Self.maximumKeepBehind,
            "a whole number of releases from 0 to \(Self.maximumKeepBehind)", &problems)
        checkIntervalSeconds = Self.whole(
            container, .checkIntervalSeconds, Self.minimumInterval...Self.maximumInterval,
            "a whole number of seconds from \(Self.minimumInterval) to \(Self.maximumInterval) (30 days)", &problems)
        let action = try? container.decodeIfPresent(String.self, forKey: .action)
        if container.contains(.action), action.map(Self.actions.contains) != true {
            problems.add("action", "INVALID_ACTION", "action must be CHANGE_REQUEST or PUBLISH")
            self.action = nil
        } else {
            self.action = action
        }
        try problems.throwIfAny()
    }

    private struct Invalid: Error {}

    /// A parameter or condition name: a non-empty string of at most 256 bytes, or null (left out).
    private static func name(
        _ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys, _ problems: inout FieldProblems
    ) -> String? {
        do {
            guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
            if !text.isEmpty, text.utf8.count <= 256 { return text }
        } catch {}
        let what = key == .condition ? "a condition's name" : "a parameter's key"
        problems.add(key.rawValue, "INVALID_NAME", "\(key.rawValue) must be \(what)")
        return nil
    }

    private static func whole(
        _ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys, _ range: ClosedRange<Int>,
        _ what: String, _ problems: inout FieldProblems
    ) -> Int? {
        do {
            guard let value = try container.decodeIfPresent(Int.self, forKey: key) else { return nil }
            if range.contains(value) { return value }
        } catch {}
        problems.add(key.rawValue, "OUT_OF_RANGE", "\(key.rawValue) must be \(what)")
        return nil
    }
}
