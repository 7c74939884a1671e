import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `/v1/apiKeys`: create, list and revoke keys. A key for one project manages only that project's keys; a
/// person makes keys for themselves with at most the role they have, and the keys are theirs.
struct APIKeysController {
    let keys: KeyStore
    let clientKeys: ClientKeys
    let auth: Authenticator

    func addRoutes(to routes: Routes) {
        routes.post("/v1/apiKeys", use: create)
        routes.get("/v1/apiKeys", query: ["owner"], use: list)
        routes.delete("/v1/apiKeys/{id}", use: revoke)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try await auth.adminSide(request)
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
        if caller.person != nil {
            // A person's own key: at most the role they have there (a client key needs editor), and theirs.
            let needed: Role = role == .client ? .editor : role
            guard let held = caller.role(on: body.project), held.covers(needed) else {
                let place = body.project.map { "on project \($0)" } ?? "on every project"
                throw APIError.permissionDenied(
                    "a \(role.rawValue) key needs the \(needed.rawValue) role \(place); you have "
                        + (caller.role(on: body.project)?.rawValue ?? "none"))
            }
        } else {
            try auth.check(caller, may: .admin, on: .any)
        }
        if let own = caller.project, body.project != own {
            throw APIError.permissionDenied("a key of project \(own) can only create keys of that project")
        }
        let (key, secret) = try await keys.create(
            displayName: displayName, role: role, project: body.project, owner: caller.person?.id,
            actor: caller.auditActor)
        clientKeys.install(secret: secret, key: key)
        var answer = Self.body(key)
        answer.key = secret
        return try JSONResponse.make(answer, status: .created)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        if let owner = request.uri.queryParameters["owner"] {
            guard owner == "me" else {
                throw APIError.invalidField("owner", reason: "INVALID_OWNER", "owner takes only `me`")
            }
            let caller = try await auth.adminSide(request)
            guard let person = caller.person else {
                throw APIError.permissionDenied("this key belongs to no person; list keys as an admin")
            }
            return try JSONResponse.make(APIKeyList(apiKeys: try await keys.list(owner: person.id).map(Self.body)))
        }
        let actor = try await auth.require(.admin, on: .any, request)
        let visible = actor.projects(with: .admin)
        let found = try await keys.list(project: actor.project).filter { key in
            guard let visible else { return true }
            return key.project.map(visible.contains) ?? false
        }
        return try JSONResponse.make(APIKeyList(apiKeys: found.map(Self.body)))
    }

    @Sendable func revoke(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let caller = try await auth.adminSide(request)
        guard let key = try await keys.get(id: id) else { throw APIError.notFound("apiKeys/\(id) not found") }
        // People revoke their own keys; admins any key of the projects they administer.
        let ownKey = caller.person != nil && key.owner == caller.person?.id
        if !ownKey {
            try auth.check(caller, may: .admin, on: .any)
            let visible = caller.projects(with: .admin)
            guard visible == nil || key.project.map({ visible?.contains($0) == true }) == true else {
                throw APIError.notFound("apiKeys/\(id) not found")
            }
        }
        try await keys.revoke(id: id, actor: caller.auditActor)
        clientKeys.revoke(id: id)
        return try JSONResponse.make(EmptyBody())
    }

    /// A stored key as the API writes it, without its secret.
    static func body(_ key: RemoteConfigStore.APIKey) -> RemoteConfigAPI.APIKey {
        var body = RemoteConfigAPI.APIKey(
            name: "apiKeys/\(key.id)", displayName: key.displayName, role: key.role.rawValue, project: key.project,
            keyPrefix: key.keyPrefix, createTime: key.createTime)
        body.owner = key.owner.map { "users/\($0)" }
        body.lastUsedTime = key.lastUsedTime
        return body
    }
}
