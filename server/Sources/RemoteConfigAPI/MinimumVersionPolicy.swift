import Foundation

/// `GET`/`PUT …/minimumVersionPolicy`: the limits within which the server raises one platform's minimum
/// version by itself, and what its last check found. A project that never set one reads as the defaults,
/// switched off.
public struct MinimumVersionPolicy: Codable, Sendable, Equatable {
    public var enabled: Bool
    /// `IOS`, `ANDROID` or `WEB`; null before a policy is saved.
    public var platform: String?
    public var parameter: String
    public var condition: String?
    public var maxBlockedShare: Double
    public var minActiveInstances: Int
    public var neverAbove: String?
    public var keepBehindLatest: Int
    public var checkIntervalSeconds: Int
    /// `CHANGE_REQUEST` or `PUBLISH`.
    public var action: String
    public var lastCheckTime: Date?
    /// `RAISED`, `PROPOSED`, `UNCHANGED`, `NOT_ENOUGH_DATA` or `LIMITED`.
    public var lastResult: String?
    public var lastRecommendation: String?
    /// The last check's figures or reason, in words.
    public var lastDetail: String?
    /// `changeRequests/<id>`: the last change request the policy opened.
    public var lastChangeRequest: String?
    public var nextCheckTime: Date?
    /// Absent before a policy is saved.
    public var updateTime: Date?

    public init(
        enabled: Bool, platform: String?, parameter: String, condition: String?, maxBlockedShare: Double,
        minActiveInstances: Int, neverAbove: String?, keepBehindLatest: Int, checkIntervalSeconds: Int,
        action: String, lastCheckTime: Date? = nil, lastResult: String? = nil, lastRecommendation: String? = nil,
        lastDetail: String? = nil, lastChangeRequest: String? = nil, nextCheckTime: Date? = nil,
        updateTime: Date? = nil
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
        self.lastCheckTime = lastCheckTime
        self.lastResult = lastResult
        self.lastRecommendation = lastRecommendation
        self.lastDetail = lastDetail
        self.lastChangeRequest = lastChangeRequest
        self.nextCheckTime = nextCheckTime
        self.updateTime = updateTime
    }

    private enum CodingKeys: String, CodingKey {
        case enabled, platform, parameter, condition, maxBlockedShare, minActiveInstances, neverAbove
        case keepBehindLatest, checkIntervalSeconds, action, lastCheckTime, lastResult, lastRecommendation
        case lastDetail, lastChangeRequest, nextCheckTime, updateTime
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // Optional settings and the status are null rather than absent, so a reader sees every field.
        try container.encode(enabled, forKey: .enabled)
        try container.encode(platform, forKey: .platform)
        try container.encode(parameter, forKey: .parameter)
        try container.encode(condition, forKey: .condition)
        try container.encode(maxBlockedShare, forKey: .maxBlockedShare)
        try container.encode(minActiveInstances, forKey: .minActiveInstances)
        try container.encode(neverAbove, forKey: .neverAbove)
        try container.encode(keepBehindLatest, forKey: .keepBehindLatest)
        try container.encode(checkIntervalSeconds, forKey: .checkIntervalSeconds)
        try container.encode(action, forKey: .action)
        try container.encode(lastCheckTime, forKey: .lastCheckTime)
        try container.encode(lastResult, forKey: .lastResult)
        try container.encode(lastRecommendation, forKey: .lastRecommendation)
        try container.encode(lastDetail, forKey: .lastDetail)
        try container.encode(lastChangeRequest, forKey: .lastChangeRequest)
        try container.encode(nextCheckTime, forKey: .nextCheckTime)
        try container.encodeIfPresent(updateTime, forKey: .updateTime)
    }
}
