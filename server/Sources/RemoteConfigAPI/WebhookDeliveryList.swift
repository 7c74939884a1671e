/// `GET …/webhooks/{id}/deliveries`: one page, newest first, and the token of the next page when there is one.
public struct WebhookDeliveryList: Codable, Sendable, Equatable {
    public var deliveries: [WebhookDelivery]
    public var nextPageToken: String?

    public init(deliveries: [WebhookDelivery], nextPageToken: String? = nil) {
        self.deliveries = deliveries
        self.nextPageToken = nextPageToken
    }
}
