import Foundation

/// The settings `PATCH /v1/projects/{p}` changes; nil leaves a setting as it is.
public struct ProjectUpdate: Sendable, Equatable {
    public var displayName: String?
    public var requireApproval: Bool?
    public var approvalsRequired: Int?

    public init(displayName: String? = nil, requireApproval: Bool? = nil, approvalsRequired: Int? = nil) {
        self.displayName = displayName
        self.requireApproval = requireApproval
        self.approvalsRequired = approvalsRequired
    }

    /// The most approvals a project may require (the database checks it too).
    public static let maximumApprovals = 10
}
