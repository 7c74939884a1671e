import Foundation

/// A project as `/v1/projects` answers it: its id, name, creation time and publish workflow settings.
public struct Project: Codable, Sendable, Equatable {
    public var projectId: String
    public var displayName: String
    public var createTime: Date
    /// Whether a publish must go through a change request.
    public var requireApproval: Bool
    /// How many approvals a change request needs.
    public var approvalsRequired: Int

    public init(
        projectId: String, displayName: String, createTime: Date, requireApproval: Bool, approvalsRequired: Int
    ) {
        self.projectId = projectId
        self.displayName = displayName
        self.createTime = createTime
        self.requireApproval = requireApproval
        self.approvalsRequired = approvalsRequired
    }
}
