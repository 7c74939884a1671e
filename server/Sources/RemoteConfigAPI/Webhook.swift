import Foundation

/// A webhook as `/v1/projects/{p}/webhooks` answers it; `secret` only when it was created or its secret rotated.
public struct Webhook: Codable, Sendable, Equatable {
    /// `webhooks/<id>`.
    public var name: String
    public var url: String
    public var events: [String]
    /// `JSON` or `SLACK`.
    public var format: String
    public var description: String
    public var enabled: Bool
    public var createTime: Date
    /// The signing secret, shown once.
    public var secret: String?

    public init(
        name: String, url: String, events: [String], format: String, description: String, enabled: Bool,
        createTime: Date, secret: String? = nil
    ) {
        self.name = name
        self.url = url
        self.events = events
        self.format = format
        self.description = description
        self.enabled = enabled
        self.createTime = createTime
        self.secret = secret
    }

    /// The id without `webhooks/`.
    public var id: String { name.hasPrefix("webhooks/") ? String(name.dropFirst("webhooks/".count)) : name }
}
