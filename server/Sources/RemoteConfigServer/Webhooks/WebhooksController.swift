import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `/v1/projects/{p}/webhooks`: an admin's webhooks, their secrets, tests and deliveries.
struct WebhooksController {
    let webhooks: WebhookStore
    let access: ProjectAccess
    let allowPrivate: Bool

    static let collection = "/v1/projects/{p}/webhooks"

    func addRoutes(to routes: Routes) {
        routes.post(Self.collection, use: create)
        routes.get(Self.collection, use: list)
        routes.get(Self.collection + "/{id}", use: get)
        routes.patch(Self.collection + "/{id}", use: update)
        routes.delete(Self.collection + "/{id}", use: delete)
        routes.post(Self.collection + "/{id}:rotateSecret", use: rotateSecret)
        routes.post(Self.collection + "/{id}:test", use: test)
        routes.get(Self.collection + "/{id}/deliveries", query: ["pageSize", "pageToken"], use: deliveries)
        routes.post(Self.collection + "/{id}/deliveries/{delivery}:redeliver", use: redeliver)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .admin)
        let sent = try await JSONBody.decode(request, context: context) {
            try WebhookRequest(from: $0, creating: true)
        }
        let body = try await WebhookBody.read(sent, allowPrivate: allowPrivate, creating: true)
        let webhook = try await webhooks.create(project, body.draft, actor: key.auditActor)
        return try RevisionETag.response(Self.body(webhook, secret: true), etag: Self.etag(webhook), status: .created)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .admin)
        let found = try await webhooks.list(project)
        return try JSONResponse.make(WebhookList(webhooks: found.map { Self.body($0) }))
    }

    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .admin)
        let webhook = try await read(project, context)
        return try RevisionETag.response(Self.body(webhook), etag: Self.etag(webhook))
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .admin)
        let id = try context.parameters.require("id")
        let sent = try await JSONBody.decode(request, context: context) {
            try WebhookRequest(from: $0, creating: false)
        }
        let body = try await WebhookBody.read(sent, allowPrivate: allowPrivate, creating: false)
        let expected = RevisionETag.expected(request, kind: Self.kind, name: id)
        let updated = try await webhooks.update(
            project, id, body.update, expectedRevision: expected, actor: key.auditActor)
        guard let webhook = updated else { throw Self.notFound(project, id) }
        return try RevisionETag.response(Self.body(webhook), etag: Self.etag(webhook))
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .admin)
        let id = try context.parameters.require("id")
        let expected = RevisionETag.expected(request, kind: Self.kind, name: id)
        let deleted = try await webhooks.delete(project, id, expectedRevision: expected, actor: key.auditActor)
        guard deleted else { throw Self.notFound(project, id) }
        return try JSONResponse.make(EmptyBody())
    }

    @Sendable func rotateSecret(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .admin)
        let id = try context.parameters.require("id")
        guard let webhook = try await webhooks.rotateSecret(project, id, actor: key.auditActor) else {
            throw Self.notFound(project, id)
        }
        return try RevisionETag.response(Self.body(webhook, secret: true), etag: Self.etag(webhook))
    }

    @Sendable func test(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .admin)
        let id = try context.parameters.require("id")
        guard let delivery = try await webhooks.ping(project, id, actor: key.auditActor) else {
            throw Self.notFound(project, id)
        }
        return try JSONResponse.make(WebhookPing(id: delivery))
    }

    @Sendable func deliveries(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .admin)
        let webhook = try await read(project, context)
        let asked = try PageRequest(request, maximum: 300)
        let page = try await webhooks.deliveries(project, webhook.id, before: asked.before, limit: asked.size)
        return try JSONResponse.make(
            WebhookDeliveryList(deliveries: page.items.map(Self.body), nextPageToken: page.next))
    }

    @Sendable func redeliver(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .admin)
        let webhook = try await read(project, context)
        let id = try context.parameters.require("delivery")
        guard let delivery = try await webhooks.redeliver(project, webhook.id, id, actor: key.auditActor) else {
            throw APIError.notFound("delivery \(id) of webhooks/\(webhook.id) not found")
        }
        return try JSONResponse.make(Self.body(delivery))
    }

    private func read(_ project: String, _ context: AppRequestContext) async throws -> RemoteConfigStore.Webhook {
        let id = try context.parameters.require("id")
        guard let webhook = try await webhooks.get(project, id) else { throw Self.notFound(project, id) }
        return webhook
    }

    /// What a webhook's ETag starts with: `"webhook-<id>-<revision>"`.
    static let kind = "webhook"

    static func etag(_ webhook: RemoteConfigStore.Webhook) -> String {
        RevisionETag.make(kind: kind, name: webhook.id, revision: webhook.revision)
    }

    static func notFound(_ project: String, _ id: String) -> APIError {
        APIError.notFound("webhooks/\(id) of \(project) not found")
    }

    /// A webhook as the API shows it; `secret` only at creation and rotation (the new signing secret).
    static func body(_ webhook: RemoteConfigStore.Webhook, secret: Bool = false) -> RemoteConfigAPI.Webhook {
        RemoteConfigAPI.Webhook(
            name: "webhooks/\(webhook.id)", url: webhook.url, events: webhook.events, format: webhook.format,
            description: webhook.description, enabled: webhook.enabled, createTime: webhook.createTime,
            secret: secret ? webhook.activeSecrets.first : nil)
    }

    /// A delivery as the API shows it.
    static func body(_ delivery: RemoteConfigStore.WebhookDelivery) -> RemoteConfigAPI.WebhookDelivery {
        RemoteConfigAPI.WebhookDelivery(
            id: delivery.id, type: delivery.type.rawValue, state: delivery.state.rawValue, attempts: delivery.attempts,
            lastStatus: delivery.lastStatus, lastError: delivery.lastError, lastAttemptTime: delivery.lastAttemptTime,
            nextAttemptTime: delivery.nextAttemptTime, createTime: delivery.createTime)
    }
}
