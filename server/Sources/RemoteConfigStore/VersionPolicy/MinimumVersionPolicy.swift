import Foundation

/// A project's minimum-version policy as stored: its settings, its last check, and its settings' revision (the
/// ETag; a check never changes it).
public struct MinimumVersionPolicy: Sendable, Equatable {
    public let project: String
    public let settings: MinimumVersionPolicySettings
    public let status: MinimumVersionPolicyStatus
    public let updateTime: Date
    public let revision: Int64
}

/// A policy held by one check, under `lease`: every write of the check requires it.
public struct MinimumVersionPolicyClaim: Sendable {
    public let policy: MinimumVersionPolicy
    public let lease: Lease
}

/// What a check writes when it ends.
public struct MinimumVersionPolicyOutcome: Sendable, Equatable {
    public var result: MinimumVersionPolicyStatus.Result
    public var recommendation: String?
    public var detail: String

    public init(result: MinimumVersionPolicyStatus.Result, recommendation: String?, detail: String) {
        self.result = result
        self.recommendation = recommendation
        self.detail = detail
    }
}
