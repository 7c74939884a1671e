/// `POST …/webhooks/{id}:test`: the `ping` delivery it queued.
public struct WebhookPing: Codable, Sendable, Equatable {
    public var id: String
    /// Always `ping`.
    public var type: String
    /// `PENDING` when queued.
    public var state: String

    public init(id: String, type: String = "ping", state: String = "PENDING") {
        self.id = id
        self.type = type
        self.state = state
    }
}
