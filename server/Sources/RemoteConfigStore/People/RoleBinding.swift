import Foundation

/// A role given to a person, a group or an email domain, on one project or on every project.
public struct RoleBinding: Sendable, Equatable {
    public let id: String
    /// `user:<email>`, `group:<name>` or `domain:<domain>`.
    public let member: String
    public let role: Role
    /// nil: every project.
    public let project: String?
    public let createTime: Date
    /// Who made it; nil for a binding made at start from `--oidc-admins`.
    public let createdBy: AuditActor?

    /// Creates a binding as the store reads it.
    public init(id: String, member: String, role: Role, project: String?, createTime: Date, createdBy: AuditActor?) {
        self.id = id
        self.member = member
        self.role = role
        self.project = project
        self.createTime = createTime
        self.createdBy = createdBy
    }

    /// Whether a binding applies on `project`.
    public func applies(on project: String) -> Bool { self.project == nil || self.project == project }
}
