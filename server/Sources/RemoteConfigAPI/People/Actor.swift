import Foundation

/// Who did something, as every audit entry, change request, approval and rollout names them: the person
/// (`users/<id>` and their email; null for keys without an owner and the server's own work) and the key.
public struct Actor: Codable, Sendable, Equatable {
    public var user: String?
    public var email: String?
    /// `apiKeys/<id>`; null for a person acting through a session, and for the server's own work.
    public var key: String?
    public var displayName: String

    public init(user: String?, email: String?, key: String?, displayName: String) {
        self.user = user
        self.email = email
        self.key = key
        self.displayName = displayName
    }

    private enum CodingKeys: String, CodingKey { case user, email, key, displayName }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // Written as null, not left out: a reader can always look for the member.
        try container.encode(user, forKey: .user)
        try container.encode(email, forKey: .email)
        try container.encode(key, forKey: .key)
        try container.encode(displayName, forKey: .displayName)
    }

    /// How a person reads it: the email (or name) with the key beside it, so a name alone never stands for
    /// someone it is not.
    public var label: String {
        let who = email ?? (displayName.isEmpty ? "(unnamed)" : displayName)
        guard let key else { return who }
        return email == nil ? "\(who) (\(key))" : "\(who) via \(key)"
    }
}
