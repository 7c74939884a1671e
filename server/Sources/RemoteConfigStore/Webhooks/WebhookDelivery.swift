import Foundation

/// One delivery of one event to one webhook.
public struct WebhookDelivery: Sendable, Equatable {
    /// Where a delivery is in its life.
    public enum State: String, Sendable {
        case pending = "PENDING"
        case delivered = "DELIVERED"
        case failed = "FAILED"
    }

    public let seq: Int64
    public let id: String
    public let webhook: String
    public let project: String
    public let type: WebhookEventType
    public let state: State
    public let attempts: Int
    public let lastStatus: Int?
    public let lastError: String?
    public let lastAttemptTime: Date?
    public let nextAttemptTime: Date?
    public let createTime: Date
}
