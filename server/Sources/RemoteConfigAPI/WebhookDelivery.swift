import Foundation

/// One delivery of an event to a webhook: its state and its last attempt (null before the first).
public struct WebhookDelivery: Codable, Sendable, Equatable {
    public var id: String
    /// The event, `template.published`, `ping`, …
    public var type: String
    /// `PENDING`, `DELIVERED` or `FAILED`.
    public var state: String
    public var attempts: Int
    public var lastStatus: Int?
    public var lastError: String?
    public var lastAttemptTime: Date?
    public var nextAttemptTime: Date?
    public var createTime: Date

    public init(
        id: String, type: String, state: String, attempts: Int, lastStatus: Int? = nil, lastError: String? = nil,
        lastAttemptTime: Date? = nil, nextAttemptTime: Date? = nil, createTime: Date
    ) {
        self.id = id
        self.type = type
        self.state = state
        self.attempts = attempts
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.lastAttemptTime = lastAttemptTime
        self.nextAttemptTime = nextAttemptTime
        self.createTime = createTime
    }

    private enum CodingKeys: String, CodingKey {
        case id, type, state, attempts, lastStatus, lastError, lastAttemptTime, nextAttemptTime, createTime
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encode(state, forKey: .state)
        try container.encode(attempts, forKey: .attempts)
        // Written as null, not left out: the answers always had these members.
        try container.encode(lastStatus, forKey: .lastStatus)
        try container.encode(lastError, forKey: .lastError)
        try container.encode(lastAttemptTime, forKey: .lastAttemptTime)
        try container.encode(nextAttemptTime, forKey: .nextAttemptTime)
        try container.encode(createTime, forKey: .createTime)
    }
}
