import Foundation

/// A stored key, without its secret.
public struct APIKey: Sendable, Equatable {
    public let id: String
    public let displayName: String
    public let role: Role
    /// The only project the key opens; nil for all projects.
    public let project: String?
    public let keyPrefix: String
    public let createTime: Date
    /// The person the key belongs to (`<id>` of `users/<id>`); nil for keys with no owner.
    public var owner: String? = nil
    /// When the key last opened an admin route, to the minute; nil when never.
    public var lastUsedTime: Date? = nil
}
