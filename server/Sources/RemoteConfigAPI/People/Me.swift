import Foundation

/// `GET /v1/me`: who the caller is, what they may do, and the CSRF token a console session's writes send.
public struct Me: Codable, Sendable, Equatable {
    /// The person: the session's, or the key's owner; null for a key without an owner.
    public var user: PersonBody?
    /// The key the call came with; null for a session.
    public var key: MeKey?
    /// The caller's roles now: on every project (`project` null) and on single projects.
    public var roles: [RoleGrant]
    /// What a console session's writes send in `X-RC-CSRF`; null for keys and personal tokens.
    public var csrfToken: String?
    public var sessionExpireTime: Date?

    public init(user: PersonBody?, key: MeKey?, roles: [RoleGrant], csrfToken: String?, sessionExpireTime: Date?) {
        self.user = user
        self.key = key
        self.roles = roles
        self.csrfToken = csrfToken
        self.sessionExpireTime = sessionExpireTime
    }

    private enum CodingKeys: String, CodingKey { case user, key, roles, csrfToken, sessionExpireTime }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(user, forKey: .user)
        try container.encode(key, forKey: .key)
        try container.encode(roles, forKey: .roles)
        try container.encode(csrfToken, forKey: .csrfToken)
        try container.encode(sessionExpireTime, forKey: .sessionExpireTime)
    }
}

/// The key of a `/v1/me` answer.
public struct MeKey: Codable, Sendable, Equatable {
    public var name: String
    public var displayName: String
    public var role: String
    public var project: String?

    public init(name: String, displayName: String, role: String, project: String?) {
        self.name = name
        self.displayName = displayName
        self.role = role
        self.project = project
    }

    private enum CodingKeys: String, CodingKey { case name, displayName, role, project }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(role, forKey: .role)
        try container.encode(project, forKey: .project)
    }
}

/// A role on one project, or on every project (`project` null).
public struct RoleGrant: Codable, Sendable, Equatable {
    public var role: String
    public var project: String?

    public init(role: String, project: String?) {
        self.role = role
        self.project = project
    }

    private enum CodingKeys: String, CodingKey { case role, project }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(role, forKey: .role)
        try container.encode(project, forKey: .project)
    }
}

/// A person as `/v1/me` and `/v1/users` answer them.
public struct PersonBody: Codable, Sendable, Equatable {
    /// `users/<id>`.
    public var name: String
    public var email: String
    public var emailVerified: Bool
    public var displayName: String
    public var groups: [String]
    public var firstSignInTime: Date?
    public var lastSignInTime: Date?
    /// In `/v1/users`: the person's roles now.
    public var roles: [RoleGrant]?

    public init(
        name: String, email: String, emailVerified: Bool, displayName: String, groups: [String],
        firstSignInTime: Date? = nil, lastSignInTime: Date? = nil, roles: [RoleGrant]? = nil
    ) {
        self.name = name
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.groups = groups
        self.firstSignInTime = firstSignInTime
        self.lastSignInTime = lastSignInTime
        self.roles = roles
    }
}

/// `GET /v1/users`.
public struct PersonList: Codable, Sendable, Equatable {
    public var users: [PersonBody]
    public var nextPageToken: String?

    public init(users: [PersonBody], nextPageToken: String?) {
        self.users = users
        self.nextPageToken = nextPageToken
    }
}

/// One session in `GET /v1/users/{id}/sessions` (never its secret).
public struct SessionBody: Codable, Sendable, Equatable {
    public var name: String
    /// `CONSOLE` or `PERSONAL` (a command line's token).
    public var kind: String
    public var createTime: Date
    public var lastSeenTime: Date
    public var expireTime: Date

    public init(name: String, kind: String, createTime: Date, lastSeenTime: Date, expireTime: Date) {
        self.name = name
        self.kind = kind
        self.createTime = createTime
        self.lastSeenTime = lastSeenTime
        self.expireTime = expireTime
    }
}

/// `GET /v1/users/{id}/sessions`.
public struct SessionList: Codable, Sendable, Equatable {
    public var sessions: [SessionBody]

    public init(sessions: [SessionBody]) { self.sessions = sessions }
}
