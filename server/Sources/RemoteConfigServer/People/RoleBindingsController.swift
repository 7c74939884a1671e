import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigStore

/// `/v1/roleBindings`: who gets which role, managed by admins and audited.
struct RoleBindingsController {
    let bindings: RoleBindingStore
    let auth: Authenticator

    func addRoutes(to routes: Routes) {
        routes.post("/v1/roleBindings", use: create)
        routes.get("/v1/roleBindings", query: ["project"], use: list)
        routes.delete("/v1/roleBindings/{id}", use: delete)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        // An admin somewhere first, so nobody else learns anything from how the body is read.
        let caller = try await auth.require(.admin, on: .any, request)
        let body = try await JSONBody.decode(CreateRoleBindingRequest.self, request, context: context)
        // An admin of one project binds people on that project; only an admin of every project binds globally.
        try auth.check(caller, may: .admin, on: body.project.map { .project($0) } ?? .global)
        guard let member = SignInSettings.member(body.member) else {
            throw APIError.invalidField(
                "member", reason: "INVALID_MEMBER",
                "member must be user:<email>, group:<name> or domain:<domain> (at most 320 characters)")
        }
        guard let role = Role(rawValue: body.role), role != .client else {
            throw APIError.invalidField("role", reason: "INVALID_ROLE", "role must be one of admin, editor, viewer")
        }
        let binding = try await bindings.create(
            member: member, role: role, project: body.project, actor: caller.auditActor)
        return try JSONResponse.make(PeopleJSON.binding(binding), status: .created)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let project = request.uri.queryParameters["project"].map(String.init)
        _ = try await auth.require(.admin, on: project.map { .project($0) } ?? .global, request)
        let found = try await bindings.list(project: project)
        return try JSONResponse.make(RoleBindingList(roleBindings: found.map(PeopleJSON.binding)))
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        guard let binding = try await bindings.get(id: id) else {
            _ = try await auth.require(.admin, on: .global, request)
            throw APIError.notFound("roleBindings/\(id) not found")
        }
        let caller = try await auth.require(.admin, on: binding.project.map { .project($0) } ?? .global, request)
        guard try await bindings.delete(id: id, actor: caller.auditActor) else {
            throw APIError.notFound("roleBindings/\(id) not found")
        }
        return try JSONResponse.make(EmptyBody())
    }
}
