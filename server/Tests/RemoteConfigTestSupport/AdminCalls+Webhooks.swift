import RemoteConfigAPI

/// `/v1/projects/{p}/webhooks`, typed.
extension AdminCalls {
    private static func webhooks(_ project: String) -> String { "/v1/projects/\(project)/webhooks" }

    /// `POST …/webhooks`: the answer carries the signing secret.
    public func createWebhook(_ project: String, _ body: WebhookRequest) async throws -> Webhook {
        try await send(.post, Self.webhooks(project), body, as: Webhook.self)
    }

    /// `GET …/webhooks`.
    public func listWebhooks(_ project: String) async throws -> WebhookList {
        try await send(.get, Self.webhooks(project), as: WebhookList.self)
    }

    /// `GET …/webhooks/{id}`.
    public func webhook(_ project: String, _ id: String) async throws -> Webhook {
        try await send(.get, Self.webhooks(project) + "/\(id)", as: Webhook.self)
    }

    /// `PATCH …/webhooks/{id}`.
    public func updateWebhook(_ project: String, _ id: String, _ body: WebhookRequest) async throws -> Webhook {
        try await send(.patch, Self.webhooks(project) + "/\(id)", body, as: Webhook.self)
    }

    /// `POST …/webhooks/{id}:rotateSecret`: the answer carries the new secret.
    public func rotateWebhookSecret(_ project: String, _ id: String) async throws -> Webhook {
        try await send(.post, Self.webhooks(project) + "/\(id):rotateSecret", as: Webhook.self)
    }

    /// `GET …/webhooks/{id}/deliveries`, newest first.
    public func webhookDeliveries(_ project: String, _ id: String) async throws -> WebhookDeliveryList {
        try await send(.get, Self.webhooks(project) + "/\(id)/deliveries", as: WebhookDeliveryList.self)
    }
}
