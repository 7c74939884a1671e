import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigStore

/// `GET /v1/me`: who the caller is, their roles now, and a console session's CSRF token.
struct MeController {
    let auth: Authenticator

    func addRoutes(to routes: Routes) {
        routes.get("/v1/me", use: me)
    }

    @Sendable func me(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try await auth.adminSide(request)
        var csrf: String?
        var expires: Date?
        if case .session(let session) = caller.credential {
            if session.kind == .console { csrf = session.csrfToken }
            expires = min(
                session.expireTime,
                session.lastSeenTime.addingTimeInterval(Double(auth.sessions.idleTimeout.components.seconds)))
        }
        let key = caller.key.map { key in
            MeKey(
                name: "apiKeys/\(key.id)", displayName: key.displayName, role: key.role.rawValue, project: key.project)
        }
        return try JSONResponse.make(
            Me(
                user: caller.person.map { PeopleJSON.person($0) }, key: key, roles: PeopleJSON.roles(of: caller),
                csrfToken: csrf, sessionExpireTime: expires))
    }
}
