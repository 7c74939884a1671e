import Foundation

/// An approval, a rejection or a cancellation of a change request: who, when, and the comment (an approval's and a
/// rejection's; a cancellation has none).
public struct ChangeRequestReview: Codable, Sendable, Equatable {
    public var key: String?
    public var displayName: String
    public var time: Date
    public var comment: String?
    /// The person who reviewed (`users/<id>`); null for a key without an owner.
    public var user: String?
    public var email: String?

    public init(
        key: String?, displayName: String, time: Date, comment: String? = nil, user: String? = nil,
        email: String? = nil
    ) {
        self.key = key
        self.displayName = displayName
        self.time = time
        self.comment = comment
        self.user = user
        self.email = email
    }

    /// Who reviewed.
    public var actor: ActingKey { ActingKey(key: key, displayName: displayName, user: user, email: email) }

    private enum CodingKeys: String, CodingKey { case key, displayName, time, comment, user, email }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(time, forKey: .time)
        try container.encodeIfPresent(comment, forKey: .comment)
        try container.encode(user, forKey: .user)
        try container.encode(email, forKey: .email)
    }
}
