import Foundation

/// An API key as `/v1/apiKeys` answers it; the secret (`key`) only in the answer that created it.
public struct APIKey: Codable, Sendable, Equatable {
    /// `apiKeys/<id>`.
    public var name: String
    public var displayName: String
    /// `admin`, `editor`, `viewer` or `client`.
    public var role: String
    /// The one project the key acts on; `null` in the answer for a key of every project.
    public var project: String?
    /// The secret's first characters, to recognise it.
    public var keyPrefix: String
    public var createTime: Date
    /// The secret, shown once.
    public var key: String?
    /// `users/<id>` of the person the key belongs to; null for a key with no owner.
    public var owner: String?
    /// When the key last opened an admin route, to the minute; null when never.
    public var lastUsedTime: Date?

    public init(
        name: String, displayName: String, role: String, project: String?, keyPrefix: String, createTime: Date,
        key: String? = nil
    ) {
        self.name = name
        self.displayName = displayName
        self.role = role
        self.project = project
        self.keyPrefix = keyPrefix
        self.createTime = createTime
        self.key = key
    }

    /// The id without `apiKeys/`.
    public var id: String { name.hasPrefix("apiKeys/") ? String(name.dropFirst("apiKeys/".count)) : name }

    private enum CodingKeys: String, CodingKey {
        case name, displayName, role, project, keyPrefix, createTime, key, owner, lastUsedTime
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(role, forKey: .role)
        // Written as null, not left out: the answers always had the member.
        try container.encode(project, forKey: .project)
        try container.encode(keyPrefix, forKey: .keyPrefix)
        try container.encode(createTime, forKey: .createTime)
        try container.encodeIfPresent(key, forKey: .key)
        try container.encode(owner, forKey: .owner)
        try container.encode(lastUsedTime, forKey: .lastUsedTime)
    }
}
