import Foundation

/// `GET`/`PUT …/storeSync`: a project's link to its App Store listing and the state of its syncs; the answer of
/// `…/storeSync:run` adds what the run did (`result`, and the version or change request it made).
public struct StoreLink: Codable, Sendable, Equatable {
    public var enabled: Bool
    /// The numeric App Store id; null before a link is saved.
    public var appStoreId: String?
    /// The two-letter storefront.
    public var country: String
    public var intervalSeconds: Int
    public var parameters: StoreLinkTargets
    /// Whether a sync publishes at once in a project that requires approval.
    public var autoApprove: Bool
    public var lastSyncTime: Date?
    public var lastStoreVersion: String?
    public var lastError: String?
    public var consecutiveFailures: Int
    public var nextSyncTime: Date?
    /// Absent before a link is saved.
    public var updateTime: Date?
    public var releaseDelaySeconds: Int
    /// A store version waiting for its release delay, and until when.
    public var pendingStoreVersion: String?
    public var pendingUntil: Date?
    /// `…:run` only: `PUBLISHED`, `CHANGE_REQUEST`, `UNCHANGED`, `PENDING` or `FAILED`.
    public var result: String?
    /// `…:run` only, when it published: the version, a decimal string.
    public var publishedVersionNumber: String?
    /// `…:run` only, when it opened one: `changeRequests/<id>`.
    public var changeRequest: String?

    public init(
        enabled: Bool, appStoreId: String?, country: String, intervalSeconds: Int,
        parameters: StoreLinkTargets = StoreLinkTargets(), autoApprove: Bool, lastSyncTime: Date? = nil,
        lastStoreVersion: String? = nil, lastError: String? = nil, consecutiveFailures: Int = 0,
        nextSyncTime: Date? = nil, updateTime: Date? = nil, releaseDelaySeconds: Int,
        pendingStoreVersion: String? = nil, pendingUntil: Date? = nil
    ) {
        self.enabled = enabled
        self.appStoreId = appStoreId
        self.country = country
        self.intervalSeconds = intervalSeconds
        self.parameters = parameters
        self.autoApprove = autoApprove
        self.lastSyncTime = lastSyncTime
        self.lastStoreVersion = lastStoreVersion
        self.lastError = lastError
        self.consecutiveFailures = consecutiveFailures
        self.nextSyncTime = nextSyncTime
        self.updateTime = updateTime
        self.releaseDelaySeconds = releaseDelaySeconds
        self.pendingStoreVersion = pendingStoreVersion
        self.pendingUntil = pendingUntil
    }

    private enum CodingKeys: String, CodingKey {
        case enabled, appStoreId, country, intervalSeconds, parameters, autoApprove, lastSyncTime
        case lastStoreVersion, lastError, consecutiveFailures, nextSyncTime, updateTime, releaseDelaySeconds
        case pendingStoreVersion, pendingUntil, result, publishedVersionNumber, changeRequest
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // The status members are null rather than absent, as the answers always wrote them.
        try container.encode(enabled, forKey: .enabled)
        try container.encode(appStoreId, forKey: .appStoreId)
        try container.encode(country, forKey: .country)
        try container.encode(intervalSeconds, forKey: .intervalSeconds)
        try container.encode(parameters, forKey: .parameters)
        try container.encode(autoApprove, forKey: .autoApprove)
        try container.encode(lastSyncTime, forKey: .lastSyncTime)
        try container.encode(lastStoreVersion, forKey: .lastStoreVersion)
        try container.encode(lastError, forKey: .lastError)
        try container.encode(consecutiveFailures, forKey: .consecutiveFailures)
        try container.encode(nextSyncTime, forKey: .nextSyncTime)
        try container.encodeIfPresent(updateTime, forKey: .updateTime)
        try container.encode(releaseDelaySeconds, forKey: .releaseDelaySeconds)
        try container.encode(pendingStoreVersion, forKey: .pendingStoreVersion)
        try container.encode(pendingUntil, forKey: .pendingUntil)
        try container.encodeIfPresent(result, forKey: .result)
        try container.encodeIfPresent(publishedVersionNumber, forKey: .publishedVersionNumber)
        try container.encodeIfPresent(changeRequest, forKey: .changeRequest)
    }
}
