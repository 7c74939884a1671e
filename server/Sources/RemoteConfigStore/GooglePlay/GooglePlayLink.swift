import Foundation

/// A project's link to its app on Google Play, with its status.
public struct GooglePlayLink: Sendable, Equatable {
    public let project: String
    public let settings: GooglePlayLinkSettings
    /// Who the server calls Google as (the key itself is sealed and never part of a link).
    public let serviceAccount: GooglePlayServiceAccount
    public let status: GooglePlayLinkStatus
    public let updateTime: Date
    /// Changes with every save of the settings (not with a sync's status); its ETag names it.
    public let revision: Int64
}

/// What an admin sets on a project's Google Play link, its key aside.
public struct GooglePlayLinkSettings: Sendable, Equatable {
    public var enabled: Bool
    /// The app's package name (`com.example.app`).
    public var packageName: String
    /// The release track read (`production`, `beta`, a custom track).
    public var track: String
    public var intervalSeconds: Int
    /// Target parameters and the release fields they receive, in the order given.
    public var parameters: [StoreLinkMapping]
    /// The condition whose conditional values receive the values; nil: the default values.
    public var condition: String?
    /// Which releases count as live.
    public var stagedRollouts: GooglePlayStagedRollouts
    /// With approvals required, a sync's change request is approved at once.
    public var autoApprove: Bool

    public init(
        enabled: Bool, packageName: String, track: String, intervalSeconds: Int, parameters: [StoreLinkMapping],
        condition: String?, stagedRollouts: GooglePlayStagedRollouts, autoApprove: Bool
    ) {
        self.enabled = enabled
        self.packageName = packageName
        self.track = track
        self.intervalSeconds = intervalSeconds
        self.parameters = parameters
        self.condition = condition
        self.stagedRollouts = stagedRollouts
        self.autoApprove = autoApprove
    }
}

/// Which of a track's releases is the live one.
public enum GooglePlayStagedRollouts: String, Sendable, Equatable, CaseIterable {
    /// Only a `completed` release: what every user of the track can get.
    case completedOnly = "COMPLETED_ONLY"
    /// An `inProgress` (staged) release takes the place of the completed one.
    case anyLive = "ANY_LIVE"
}

/// The service account a link calls Google as, as answers show it.
public struct GooglePlayServiceAccount: Sendable, Equatable {
    public let clientEmail: String
    public let privateKeyId: String

    public init(clientEmail: String, privateKeyId: String) {
        self.clientEmail = clientEmail
        self.privateKeyId = privateKeyId
    }
}

/// A service account's key: what the server signs its token requests with. Printed, it shows no private key.
public struct GooglePlayServiceAccountKey: Sendable, Equatable, CustomStringConvertible {
    public let account: GooglePlayServiceAccount
    /// The PEM of the RSA private key (`-----BEGIN PRIVATE KEY-----…`).
    public let privateKeyPEM: String

    public init(account: GooglePlayServiceAccount, privateKeyPEM: String) {
        self.account = account
        self.privateKeyPEM = privateKeyPEM
    }

    public var description: String {
        "GooglePlayServiceAccountKey(\(account.clientEmail), \(account.privateKeyId), private key redacted)"
    }
}

/// How a link's syncs went.
public struct GooglePlayLinkStatus: Sendable, Equatable {
    /// The last attempt, successful or not.
    public let lastSyncTime: Date?
    /// The live release the last successful sync read.
    public let lastRelease: GooglePlayReleaseSummary?
    /// Why the last attempt failed (or, after a success, what it could not map); nil when all went well.
    public let lastError: String?
    /// Failed attempts since the last success (the backoff grows with them).
    public let consecutiveFailures: Int
    /// When the background loop syncs the link next.
    public let nextSyncTime: Date
}

/// The live release a sync read, as the status keeps it.
public struct GooglePlayReleaseSummary: Sendable, Equatable, Codable {
    /// The release's `name`, as Play Console shows it.
    public var name: String?
    /// The highest of its `versionCodes`.
    public var versionCode: String
    /// `completed` or `inProgress`.
    public var status: String
    /// The share of users a staged release reaches.
    public var userFraction: Double?

    public init(name: String?, versionCode: String, status: String, userFraction: Double?) {
        self.name = name
        self.versionCode = versionCode
        self.status = status
        self.userFraction = userFraction
    }
}

/// A Google Play link held by one sync, under `lease`: every write of the sync requires it.
public struct GooglePlayLinkClaim: Sendable {
    public let link: GooglePlayLink
    public let lease: Lease
    /// The sealed private key, opened by `GooglePlayLinkStore.key(of:)`.
    let sealedKey: String

    /// What the sync's writes check.
    public var fence: SyncFence { SyncFence(table: .googlePlay, project: link.project, lease: lease) }
}
