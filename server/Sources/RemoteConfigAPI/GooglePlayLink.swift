import Foundation

/// `GET`/`PUT …/storeSync/googlePlay`: a project's link to its app on Google Play and the state of its syncs;
/// the answer of `…:run` adds what the run did. The service-account key is never part of it: `serviceAccount`
/// names whose key is stored.
public struct GooglePlayLink: Codable, Sendable, Equatable {
    public var enabled: Bool
    /// Null before a link is saved.
    public var packageName: String?
    public var track: String
    public var intervalSeconds: Int
    /// Null before a link is saved.
    public var serviceAccount: ServiceAccount?
    public var parameters: StoreLinkTargets
    public var condition: String?
    /// `COMPLETED_ONLY` or `ANY_LIVE`.
    public var stagedRollouts: String
    public var autoApprove: Bool
    public var lastSyncTime: Date?
    /// The live release the last successful sync read.
    public var liveRelease: Release?
    public var lastError: String?
    public var consecutiveFailures: Int
    public var nextSyncTime: Date?
    /// Absent before a link is saved.
    public var updateTime: Date?
    /// `…:run` only: `PUBLISHED`, `CHANGE_REQUEST`, `UNCHANGED`, `NOT_LIVE` or `FAILED`.
    public var result: String?
    /// `…:run` only, when it published: the version, a decimal string.
    public var publishedVersionNumber: String?
    /// `…:run` only, when it opened one: `changeRequests/<id>`.
    public var changeRequest: String?

    /// Whose key the link calls Google with.
    public struct ServiceAccount: Codable, Sendable, Equatable {
        public var clientEmail: String
        public var privateKeyId: String

        public init(clientEmail: String, privateKeyId: String) {
            self.clientEmail = clientEmail
            self.privateKeyId = privateKeyId
        }
    }

    /// A track's live release, as the last sync read it.
    public struct Release: Codable, Sendable, Equatable {
        public var name: String?
        /// The highest of the release's version codes, a decimal string.
        public var versionCode: String
        /// `completed` or `inProgress`.
        public var status: String
        public var userFraction: Double?

        public init(name: String?, versionCode: String, status: String, userFraction: Double?) {
            self.name = name
            self.versionCode = versionCode
            self.status = status
            self.userFraction = userFraction
        }

        private enum CodingKeys: String, CodingKey {
            case name, versionCode, status, userFraction
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            // Null rather than absent: a completed release has no fraction, and readers see the member.
            try container.encode(name, forKey: .name)
            try container.encode(versionCode, forKey: .versionCode)
            try container.encode(status, forKey: .status)
            try container.encode(userFraction, forKey: .userFraction)
        }
    }

    public init(
        enabled: Bool, packageName: String?, track: String, intervalSeconds: Int, serviceAccount: ServiceAccount?,
        parameters: StoreLinkTargets = StoreLinkTargets(), condition: String? = nil, stagedRollouts: String,
        autoApprove: Bool, lastSyncTime: Date? = nil, liveRelease: Release? = nil, lastError: String? = nil,
        consecutiveFailures: Int = 0, nextSyncTime: Date? = nil, updateTime: Date? = nil
    ) {
        self.enabled = enabled
        self.packageName = packageName
        self.track = track
        self.intervalSeconds = intervalSeconds
        self.serviceAccount = serviceAccount
        self.parameters = parameters
        self.condition = condition
        self.stagedRollouts = stagedRollouts
        self.autoApprove = autoApprove
        self.lastSyncTime = lastSyncTime
        self.liveRelease = liveRelease
        self.lastError = lastError
        self.consecutiveFailures = consecutiveFailures
        self.nextSyncTime = nextSyncTime
        self.updateTime = updateTime
    }

    private enum CodingKeys: String, CodingKey {
        case enabled, packageName, track, intervalSeconds, serviceAccount, parameters, condition, stagedRollouts
        case autoApprove, lastSyncTime, liveRelease, lastError, consecutiveFailures, nextSyncTime, updateTime
        case result, publishedVersionNumber, changeRequest
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // The settings and status members are null rather than absent, as the App Store link's are.
        try container.encode(enabled, forKey: .enabled)
        try container.encode(packageName, forKey: .packageName)
        try container.encode(track, forKey: .track)
        try container.encode(intervalSeconds, forKey: .intervalSeconds)
        try container.encode(serviceAccount, forKey: .serviceAccount)
        try container.encode(parameters, forKey: .parameters)
        try container.encode(condition, forKey: .condition)
        try container.encode(stagedRollouts, forKey: .stagedRollouts)
        try container.encode(autoApprove, forKey: .autoApprove)
        try container.encode(lastSyncTime, forKey: .lastSyncTime)
        try container.encode(liveRelease, forKey: .liveRelease)
        try container.encode(lastError, forKey: .lastError)
        try container.encode(consecutiveFailures, forKey: .consecutiveFailures)
        try container.encode(nextSyncTime, forKey: .nextSyncTime)
        try container.encodeIfPresent(updateTime, forKey: .updateTime)
        try container.encodeIfPresent(result, forKey: .result)
        try container.encodeIfPresent(publishedVersionNumber, forKey: .publishedVersionNumber)
        try container.encodeIfPresent(changeRequest, forKey: .changeRequest)
    }
}
