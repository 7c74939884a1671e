/// Who acted, as audit entries, change requests, approvals, rollouts and webhook payloads name them: the person (`users/<id>` and email, null for keys without an owner and the server's own work),
/// the key (`apiKeys/<id>`, null for the server's own actions and for a person's session) and a name for people.
public struct ActingKey: Codable, Sendable, Equatable {
    public var key: String?
    public var displayName: String
    public var user: String?
    public var email: String?

    public init(key: String?, displayName: String, user: String? = nil, email: String? = nil) {
        self.key = key
        self.displayName = displayName
        self.user = user
        self.email = email
    }

    private enum CodingKeys: String, CodingKey { case key, displayName, user, email }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // Written as null, not left out: the answers always had the member.
        try container.encode(key, forKey: .key)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(user, forKey: .user)
        try container.encode(email, forKey: .email)
    }
}
