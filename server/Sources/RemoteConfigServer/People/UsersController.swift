import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigStore

/// `/v1/users`: the people who signed in, their roles and sessions (admin of every project).
struct UsersController {
    let users: UserStore
    let sessions: SessionStore
    let bindings: RoleBindingStore
    let auth: Authenticator

    func addRoutes(to routes: Routes) {
        routes.get("/v1/users", query: ["pageSize", "pageToken"], use: list)
        routes.get("/v1/users/{id}/sessions", use: listSessions)
        routes.delete("/v1/users/{id}/sessions", use: revokeSessions)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try await auth.require(.admin, on: .global, request)
        // The token is the last id of the page before; any text is a place in the order of ids.
        let asked = try PageRequest(request, maximum: 1000, defaultSize: 100) { $0 }
        let page = try await users.list(after: asked.token, limit: asked.size)
        var bodies: [PersonBody] = []
        for user in page.items {
            let roles = PeopleJSON.roles(try await bindings.bindings(of: user.members))
            bodies.append(PeopleJSON.person(user, roles: roles, times: true))
        }
        return try JSONResponse.make(
            PersonList(users: bodies, nextPageToken: page.next))
    }

    @Sendable func listSessions(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try await auth.require(.admin, on: .global, request)
        let user = try await existing(context)
        return try JSONResponse.make(
            SessionList(sessions: try await sessions.list(user: user.id).map(PeopleJSON.session)))
    }

    @Sendable func revokeSessions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try await auth.require(.admin, on: .global, request)
        let user = try await existing(context)
        _ = try await sessions.revokeAll(user: user.id, actor: caller.auditActor)
        return try JSONResponse.make(EmptyBody())
    }

    private func existing(_ context: AppRequestContext) async throws -> User {
        let id = try context.parameters.require("id")
        guard let user = try await users.get(id: id) else { throw APIError.notFound("users/\(id) not found") }
        return user
    }
}
