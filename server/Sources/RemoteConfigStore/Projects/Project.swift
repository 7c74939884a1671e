import Foundation

/// A project: one app (or family of apps) with its own templates and client keys.
public struct Project: Sendable, Equatable {
    public let projectId: String
    public let displayName: String
    public let createTime: Date
    /// Whether every publish must go through an approved change request.
    public let requireApproval: Bool
    /// How many approvals (by keys other than the author) make a change request approved.
    public let approvalsRequired: Int
    /// The environment this project is ("staging"), for people.
    public let environmentName: String?
    /// The project this one's published versions are promoted into.
    public let promotesTo: String?
    /// Parameters that belong to this environment: a promotion from it never sends them.
    public let localParameters: [String]
}
