import Foundation

/// A delivery claimed for one attempt: everything sending it needs, and the lease that proves the claim.
public struct ClaimedDelivery: Sendable {
    public let seq: Int64
    public let id: String
    public let webhook: Webhook
    public let type: WebhookEventType
    public let actorKey: String?
    public let actorName: String
    /// The event's facts as JSON text.
    public let dataJSON: String
    /// The body made at an earlier attempt; nil before the first.
    public let body: String?
    public let attempts: Int
    public let createTime: Date
    public let lease: Lease
    /// The person behind the event (`<id>` of `users/<id>`); nil for keys without an owner and the server.
    public var actorUser: String? = nil
    public var actorEmail: String? = nil
}
