import Foundation
import Hummingbird
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
        let body = try WebhookBody(
            try await JSONBody.read(request, context: context), allowPrivate: allowPrivate, creating: true)
        let webhook = try await webhooks.create(project, body.draft, actor: key.auditActor)
        return JSONResponse.make(Self.json(webhook, secret: true), status: .created)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .admin)
        let found = try await webhooks.list(project)
        return JSONResponse.make(["webhooks": .array(found.map { .object(Self.json($0)) })])
    }

    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .admin)
        return JSONResponse.make(Self.json(try await read(project, context)))
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .admin)
        let id = try context.parameters.require("id")
        let body = try WebhookBody(
            try await JSONBody.read(request, context: context), allowPrivate: allowPrivate, creating: false)
        guard let webhook = try await webhooks.update(project, id, body.update, actor: key.auditActor) else {
            throw Self.notFound(project, id)
        }
        return JSONResponse.make(Self.json(webhook))
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .admin)
        let id = try context.parameters.require("id")
        guard try await webhooks.delete(project, id, actor: key.auditActor) else { throw Self.notFound(project, id) }
        return JSONResponse.make([:])
    }

    @Sendable func rotateSecret(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .admin)
        let id = try context.parameters.require("id")
        guard let webhook = try await webhooks.rotateSecret(project, id, actor: key.auditActor) else {
            throw Self.notFound(project, id)
        }
        return JSONResponse.make(Self.json(webhook, secret: true))
    }

    @Sendable func test(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .admin)
        let id = try context.parameters.require("id")
        guard let delivery = try await webhooks.ping(project, id, actor: key.auditActor) else {
            throw Self.notFound(project, id)
        }
        return JSONResponse.make(["id": .string(delivery), "type": .string("ping"), "state": .string("PENDING")])
    }

    @Sendable func deliveries(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .admin)
        let webhook = try await read(project, context)
        let parameters = request.uri.queryParameters
        var pageSize = 50
        if let text = parameters.get("pageSize") {
            guard let size = Int(text), (1...300).contains(size) else {
                throw APIError.invalidField("pageSize", reason: "INVALID_PAGE_SIZE", "pageSize must be 1 to 300")
            }
            pageSize = size
        }
        var before: Int64?
        if let token = parameters.get("pageToken") {
            guard let value = Int64(token) else {
                throw APIError.invalidField("pageToken", reason: "INVALID_PAGE_TOKEN", "pageToken is not one we issued")
            }
            before = value
        }
        let found = try await webhooks.deliveries(project, webhook.id, before: before, limit: pageSize + 1)
        let page = found.prefix(pageSize)
        var object: JSONObject = ["deliveries": .array(page.map { .object(Self.json($0)) })]
        if found.count > pageSize, let last = page.last { object["nextPageToken"] = .string(String(last.seq)) }
        return JSONResponse.make(object)
    }

    @Sendable func redeliver(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .admin)
        let webhook = try await read(project, context)
        let id = try context.parameters.require("delivery")
        guard let delivery = try await webhooks.redeliver(project, webhook.id, id) else {
            throw APIError.notFound("delivery \(id) of webhooks/\(webhook.id) not found")
        }
        return JSONResponse.make(Self.json(delivery))
    }

    private func read(_ project: String, _ context: AppRequestContext) async throws -> Webhook {
        let id = try context.parameters.require("id")
        guard let webhook = try await webhooks.get(project, id) else { throw Self.notFound(project, id) }
        return webhook
    }

    static func notFound(_ project: String, _ id: String) -> APIError {
        APIError.notFound("webhooks/\(id) of \(project) not found")
    }

    /// A webhook as the API shows it; `secret` only at creation and rotation (the new signing secret).
    static func json(_ webhook: Webhook, secret: Bool = false) -> JSONObject {
        var object: JSONObject = [
            "name": .string("webhooks/\(webhook.id)"), "url": .string(webhook.url),
            "events": .array(webhook.events.map { .string($0) }), "format": .string(webhook.format),
            "description": .string(webhook.description), "enabled": .bool(webhook.enabled),
            "createTime": .string(JSONResponse.timestamp(webhook.createTime)),
        ]
        if secret, let current = webhook.activeSecrets.first { object["secret"] = .string(current) }
        return object
    }

    static func json(_ delivery: WebhookDelivery) -> JSONObject {
        var object: JSONObject = [
            "id": .string(delivery.id), "type": .string(delivery.type), "state": .string(delivery.state.rawValue),
            "attempts": .integer(delivery.attempts),
        ]
        object["lastStatus"] = delivery.lastStatus.map { .integer($0) } ?? .null
        object["lastError"] = delivery.lastError.map { .string($0) } ?? .null
        object["lastAttemptTime"] = delivery.lastAttemptTime.map { .string(JSONResponse.timestamp($0)) } ?? .null
        object["nextAttemptTime"] = delivery.nextAttemptTime.map { .string(JSONResponse.timestamp($0)) } ?? .null
        object["createTime"] = .string(JSONResponse.timestamp(delivery.createTime))
        return object
    }
}
