import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `/v1/apiKeys`: create, list and revoke keys. A key for one project manages only that project's keys.
struct APIKeysController {
    let keys: KeyStore
    let clientKeys: ClientKeys
    let auth: Authenticator

    func addRoutes(to routes: Routes) {
        routes.post("/v1/apiKeys", use: create)
        routes.get("/v1/apiKeys", use: list)
        routes.delete("/v1/apiKeys/{id}", use: revoke)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let actor = try await auth.require(.admin, on: .any, request)
        let body = try await JSONBody.decode(CreateAPIKeyRequest.self, request, context: context)
        let displayName = body.displayName ?? ""
        try TextLimits.checkDisplayName(displayName)
        guard let role = Role(rawValue: body.role) else {
            throw APIError.invalidField(
                "role", reason: "INVALID_ROLE", "role must be one of admin, editor, viewer, client")
        }
        if role == .client, body.project == nil {
            throw APIError.invalidField("project", reason: "REQUIRED", "a client key needs a project")
        }
        if let own = actor.project, body.project != own {
            throw APIError.permissionDenied("a key of project \(own) can only create keys of that project")
        }
        let (key, secret) = try await keys.create(
            displayName: displayName, role: role, project: body.project, actor: actor.auditActor)
        clientKeys.install(secret: secret, key: key)
        var answer = Self.body(key)
        answer.key = secret
        return try JSONResponse.make(answer, status: .created)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let actor = try await auth.require(.admin, on: .any, request)
        let found = try await keys.list(project: actor.project)
        return try JSONResponse.make(APIKeyList(apiKeys: found.map(Self.body)))
    }

    @Sendable func revoke(_ request: Request, context: AppRequestContext) async throws -> Response {
        let actor = try await auth.require(.admin, on: .any, request)
        let id = try context.parameters.require("id")
        guard let key = try await keys.get(id: id), actor.project == nil || key.project == actor.project else {
            throw APIError.notFound("apiKeys/\(id) not found")
        }
        try await keys.revoke(id: id, actor: actor.auditActor)
        clientKeys.revoke(id: id)
        return try JSONResponse.make(EmptyBody())
    }

    /// A stored key as the API writes it, without its secret.
    static func body(_ key: RemoteConfigStore.APIKey) -> RemoteConfigAPI.APIKey {
        RemoteConfigAPI.APIKey(
            name: "apiKeys/\(key.id)", displayName: key.displayName, role: key.role.rawValue, project: key.project,
            keyPrefix: key.keyPrefix, createTime: key.createTime)
    }
}
