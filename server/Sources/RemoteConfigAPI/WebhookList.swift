/// `GET /v1/projects/{p}/webhooks`: the project's webhooks, without secrets.
public struct WebhookList: Codable, Sendable, Equatable {
    public var webhooks: [Webhook]

    public init(webhooks: [Webhook]) {
        self.webhooks = webhooks
    }
}
