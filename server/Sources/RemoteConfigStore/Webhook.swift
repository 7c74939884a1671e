import Foundation

/// One webhook of a project, as stored; its secrets never leave the server except at creation and rotation.
public struct Webhook: Sendable, Equatable {
    public let id: String
    public let project: String
    public let url: String
    public let events: [String]
    public let format: String
    public let description: String
    public let enabled: Bool
    public let createTime: Date
    /// The secrets that sign now: the current one first, then the previous one during its 24 hours.
    public let activeSecrets: [String]
}

/// What creating a webhook records.
public struct WebhookDraft: Sendable, Equatable {
    public var url: String
    public var events: [String]
    public var format: String
    public var description: String

    public init(url: String, events: [String], format: String, description: String) {
        self.url = url
        self.events = events
        self.format = format
        self.description = description
    }
}

/// A `PATCH` of a webhook: nil leaves a field as it is.
public struct WebhookUpdate: Sendable, Equatable {
    public var url: String?
    public var events: [String]?
    public var format: String?
    public var description: String?
    public var enabled: Bool?

    public init() {}
}

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
    public let type: String
    public let state: State
    public let attempts: Int
    public let lastStatus: Int?
    public let lastError: String?
    public let lastAttemptTime: Date?
    public let nextAttemptTime: Date?
    public let createTime: Date
}

/// A delivery claimed for one attempt: everything sending it needs, and the lease that proves the claim.
public struct ClaimedDelivery: Sendable {
    public let seq: Int64
    public let id: String
    public let webhook: Webhook
    public let type: String
    public let actorKey: String?
    public let actorName: String
    /// The event's facts as JSON text.
    public let dataJSON: String
    /// The body made at an earlier attempt; nil before the first.
    public let body: String?
    public let attempts: Int
    public let createTime: Date
    public let leaseToken: UUID
}

/// How an attempt ended.
public struct DeliveryOutcome: Sendable {
    public var status: Int?
    public var error: String?
    public var delivered: Bool

    public init(status: Int?, error: String?, delivered: Bool) {
        self.status = status
        self.error = error
        self.delivered = delivered
    }
}
