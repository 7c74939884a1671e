import Foundation

/// A role binding as `/v1/roleBindings` answers it.
public struct RoleBindingBody: Codable, Sendable, Equatable {
    /// `roleBindings/<id>`.
    public var name: String
    /// `user:<email>`, `group:<name>` or `domain:<domain>`.
    public var member: String
    public var role: String
    /// null: every project.
    public var project: String?
    public var createTime: Date
    /// Who made it; `{"bootstrap": true}` for one made at start from `--oidc-admins`.
    public var createdBy: BindingCreator

    public init(
        name: String, member: String, role: String, project: String?, createTime: Date, createdBy: BindingCreator
    ) {
        self.name = name
        self.member = member
        self.role = role
        self.project = project
        self.createTime = createTime
        self.createdBy = createdBy
    }

    private enum CodingKeys: String, CodingKey { case name, member, role, project, createTime, createdBy }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(member, forKey: .member)
        try container.encode(role, forKey: .role)
        try container.encode(project, forKey: .project)
        try container.encode(createTime, forKey: .createTime)
        try container.encode(createdBy, forKey: .createdBy)
    }
}

/// Who made a binding: an actor, or the start-up's `--oidc-admins`.
public struct BindingCreator: Codable, Sendable, Equatable {
    public var user: String?
    public var email: String?
    public var key: String?
    public var displayName: String?
    public var bootstrap: Bool?

    public init(
        user: String? = nil, email: String? = nil, key: String? = nil, displayName: String? = nil,
        bootstrap: Bool? = nil
    ) {
        self.user = user
        self.email = email
        self.key = key
        self.displayName = displayName
        self.bootstrap = bootstrap
    }
}

/// `POST /v1/roleBindings`.
public struct CreateRoleBindingRequest: Codable, Sendable, Equatable {
    public var member: String
    public var role: String
    public var project: String?

    public init(member: String, role: String, project: String? = nil) {
        self.member = member
        self.role = role
        self.project = project
    }
}

/// `GET /v1/roleBindings`.
public struct RoleBindingList: Codable, Sendable, Equatable {
    public var roleBindings: [RoleBindingBody]

    public init(roleBindings: [RoleBindingBody]) { self.roleBindings = roleBindings }
}
