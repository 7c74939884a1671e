import RemoteConfigCore

/// `/v1/projects/{p}/webhooks`.
extension AdminClient {
    private static func webhooks(_ project: String) -> String { "/v1/projects/\(escape(project))/webhooks" }

    /// `<id>` of `webhooks/<id>` or of a bare id.
    private static func webhookID(_ id: String) -> String {
        escape(id.hasPrefix("webhooks/") ? String(id.dropFirst("webhooks/".count)) : id)
    }

    /// `GET …/webhooks`: the project's webhooks, without secrets.
    public func listWebhooks(project: String) async throws -> JSONObject {
        try await call("GET", Self.webhooks(project)).object()
    }

    /// `GET …/webhooks/{id}`.
    public func webhook(project: String, id: String) async throws -> JSONObject {
        try await call("GET", Self.webhooks(project) + "/" + Self.webhookID(id)).object()
    }

    /// `POST …/webhooks`: the answer carries the signing secret, shown this once.
    public func createWebhook(
        project: String, url: String, events: [String], format: String?, description: String?
    ) async throws -> JSONObject {
        var body: JSONObject = ["url": .string(url), "events": .array(events.map { .string($0) })]
        if let format { body["format"] = .string(format) }
        if let description { body["description"] = .string(description) }
        return try await call("POST", Self.webhooks(project), body: JSONValue.object(body).jsonBytes()).object()
    }

    /// `DELETE …/webhooks/{id}`.
    public func deleteWebhook(project: String, id: String) async throws {
        _ = try await call("DELETE", Self.webhooks(project) + "/" + Self.webhookID(id))
    }

    /// `POST …/webhooks/{id}:test`: queues a ping.
    public func testWebhook(project: String, id: String) async throws -> JSONObject {
        try await call("POST", Self.webhooks(project) + "/" + Self.webhookID(id) + ":test").object()
    }

    /// `GET …/webhooks/{id}/deliveries`, newest first.
    public func webhookDeliveries(project: String, id: String) async throws -> JSONObject {
        try await call("GET", Self.webhooks(project) + "/" + Self.webhookID(id) + "/deliveries").object()
    }
}
