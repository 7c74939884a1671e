import Foundation
import Hummingbird
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
        let body = try await CreateKeyBody.read(request, context: context)
        if let own = actor.project, body.project != own {
            throw APIError.permissionDenied("a key of project \(own) can only create keys of that project")
        }
        let (key, secret) = try await keys.create(
            displayName: body.displayName, role: body.role, project: body.project, actor: actor.auditActor)
        clientKeys.install(secret: secret, key: key)
        var json = Self.json(key)
        json["key"] = .string(secret)
        return JSONResponse.make(json, status: .created)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let actor = try await auth.require(.admin, on: .any, request)
        let found = try await keys.list(project: actor.project)
        return JSONResponse.make(["apiKeys": .array(found.map { .object(Self.json($0)) })])
    }

    @Sendable func revoke(_ request: Request, context: AppRequestContext) async throws -> Response {
        let actor = try await auth.require(.admin, on: .any, request)
        let id = try context.parameters.require("id")
        guard let key = try await keys.get(id: id), actor.project == nil || key.project == actor.project else {
            throw APIError.notFound("apiKeys/\(id) not found")
        }
        try await keys.revoke(id: id, actor: actor.auditActor)
        clientKeys.revoke(id: id)
        return JSONResponse.make([:], status: .ok)
    }

    /// `POST /v1/apiKeys`: `{"displayName", "role", "project"}`.
    struct CreateKeyBody: RequestBody {
        let displayName: String
        let role: Role
        let project: String?

        init(_ body: JSONBody) throws {
            displayName = try body.string("displayName") ?? ""
            try TextLimits.checkDisplayName(displayName)
            let roleName = try body.requiredString("role")
            guard let role = Role(rawValue: roleName) else {
                throw APIError.invalidField(
                    "role", reason: "INVALID_ROLE", "role must be one of admin, editor, viewer, client")
            }
            self.role = role
            project = try body.string("project")
            if role == .client, project == nil {
                throw APIError.invalidField("project", reason: "REQUIRED", "a client key needs a project")
            }
        }
    }

    static func json(_ key: APIKey) -> JSONObject {
        [
            "name": .string("apiKeys/\(key.id)"), "displayName": .string(key.displayName),
            "role": .string(key.role.rawValue), "project": key.project.map(JSONValue.string) ?? .null,
            "keyPrefix": .string(key.keyPrefix), "createTime": .string(JSONResponse.timestamp(key.createTime)),
        ]
    }
}
