import Foundation

/// Who made a change: the acting key's id and its display name at the time, and the person behind it.
public struct AuditActor: Sendable, Equatable {
    /// The key's id (`<id>` of `apiKeys/<id>`); nil for the server's own changes and for a person acting
    /// through a session.
    public let keyId: String?
    public let displayName: String
    /// The person (`<id>` of `users/<id>`): the session's, or the key's owner; nil for keys without an owner
    /// and the server's own work.
    public let userId: String?
    /// The person's email at the time; nil without a person.
    public let email: String?
    /// What the change came through when not the API directly: `mcp` for an assistant's (recorded as the
    /// audit entry's `"via"`).
    public let via: String?

    /// The one value of `via`.
    public static let viaMCP = "mcp"

    /// An actor; without `userId` it is a key without an owner (or the server itself).
    public init(keyId: String?, displayName: String, userId: String? = nil, email: String? = nil, via: String? = nil) {
        self.keyId = keyId
        self.displayName = displayName
        self.userId = userId
        self.email = email
        self.via = via
    }

    /// What a version records as Firebase's `updateUser.email`: the person's email, else the key's name.
    public var updateUser: String { email ?? displayName }

    /// Who this is for the four-eyes rule: the person, else the key.
    public var identity: String? {
        if let userId { return "user:\(userId)" }
        return keyId.map { "key:\($0)" }
    }
}
