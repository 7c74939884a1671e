import RemoteConfigAPI

/// `/v1/projects/{p}/webhooks`.
extension AdminClient {
    private static func webhooks(_ project: String) -> String { "/v1/projects/\(escape(project))/webhooks" }

    /// `<id>` of `webhooks/<id>` or of a bare id.
    private static func webhookID(_ id: String) -> String {
        escape(id.hasPrefix("webhooks/") ? String(id.dropFirst("webhooks/".count)) : id)
    }

    /// `GET …/webhooks`: the project's webhooks, without secrets.
    public func listWebhooks(project: String) async throws -> WebhookList {
        try await call("GET", Self.webhooks(project)).decode(WebhookList.self)
    }

    /// `GET …/webhooks/{id}`.
    public func webhook(project: String, id: String) async throws -> Webhook {
        try await call("GET", Self.webhooks(project) + "/" + Self.webhookID(id)).decode(Webhook.self)
    }

    /// `POST …/webhooks`: the answer carries the signing secret, shown this once.
    public func createWebhook(
        project: String, url: String, events: [String], format: String?, description: String?
    ) async throws -> Webhook {
        let body = WebhookRequest(url: url, events: events, format: format, description: description)
        return try await call("POST", Self.webhooks(project), body: APIEncoder.bytes(body)).decode(Webhook.self)
    }

    /// `DELETE …/webhooks/{id}`.
    public func deleteWebhook(project: String, id: String) async throws {
        _ = try await call("DELETE", Self.webhooks(project) + "/" + Self.webhookID(id))
    }

    /// `POST …/webhooks/{id}:test`: queues a ping.
    public func testWebhook(project: String, id: String) async throws -> WebhookPing {
        try await call("POST", Self.webhooks(project) + "/" + Self.webhookID(id) + ":test").decode(WebhookPing.self)
    }

    /// `GET …/webhooks/{id}/deliveries`, newest first.
    public func webhookDeliveries(project: String, id: String) async throws -> WebhookDeliveryList {
        try await call("GET", Self.webhooks(project) + "/" + Self.webhookID(id) + "/deliveries").decode(
            WebhookDeliveryList.self)
    }
}
