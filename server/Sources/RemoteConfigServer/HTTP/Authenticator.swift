import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import RemoteConfigStore

/// Resolves the caller of an admin request (a bearer key, a personal token, or the console's session
/// cookie) and checks its role and project. A cookie-authenticated write must carry the session's CSRF token
/// and, when the browser sends one, an `Origin` equal to the public URL's.
struct Authenticator: Sendable {
    let keys: KeyStore
    let sessions: SessionStore
    let users: UserStore
    let bindings: RoleBindingStore
    /// `scheme://host[:port]` of `--public-url`, which a cookie-authenticated write's `Origin` must equal;
    /// nil when no public URL is set.
    let publicOrigin: String?

    /// The name of the console's session cookie.
    static let sessionCookie = "rc_session"
    /// The header a cookie-authenticated write carries its CSRF token in.
    static let csrfHeader = HTTPField.Name("X-RC-CSRF")!

    /// The caller of `request`; 401 when it names none, or one that is not valid (or no longer). A request that
    /// says `X-RC-Via: mcp` (an assistant's, through `/mcp` or `remote-config mcp`) is recorded so in the audit log.
    func caller(_ request: Request) async throws -> Caller {
        var caller = try await resolve(request)
        if let via = request.headers[Self.viaHeader] {
            guard via == AuditActor.viaMCP else {
                throw APIError.invalidField(
                    Self.viaHeader.canonicalName, reason: "INVALID_VALUE", "X-RC-Via takes only `mcp`")
            }
            caller.via = via
        }
        return caller
    }

    /// The header that says an assistant made the call.
    static let viaHeader = HTTPField.Name("X-RC-Via")!

    private func resolve(_ request: Request) async throws -> Caller {
        if let header = request.headers[.authorization] {
            guard let token = BearerToken.token(header) else {
                throw APIError.unauthenticated("the Authorization header must be `Bearer <token>`")
            }
            if token.hasPrefix("rc_user_") {
                guard let (session, user) = try await sessions.authenticate(secret: token), session.kind == .personal
                else {
                    throw APIError.unauthenticated("the personal token is not valid, expired or was revoked")
                }
                return try await person(user, .session(session))
            }
            guard let key = try await keys.authenticate(secret: token) else {
                throw APIError.unauthenticated("the token is not valid or was revoked")
            }
            guard let owner = key.owner else { return Caller(credential: .key(key), person: nil, bindings: []) }
            guard let user = try await users.get(id: owner) else {
                throw APIError.unauthenticated("the key's owner is unknown")
            }
            return try await person(user, .key(key))
        }
        if let secret = Self.cookie(Self.sessionCookie, in: request) {
            guard let (session, user) = try await sessions.authenticate(secret: secret), session.kind == .console else {
                throw APIError.unauthenticated("the session is not valid, expired or was ended: sign in again")
            }
            try checkCSRF(request, session: session)
            return try await person(user, .session(session))
        }
        throw APIError.unauthenticated("missing Authorization: Bearer <token>")
    }

    /// The caller of `request` when it may act with `role` on `scope`; 401 or 403 otherwise.
    func require(_ role: Role, on scope: AccessScope, _ request: Request) async throws -> Caller {
        let caller = try await caller(request)
        try check(caller, may: role, on: scope)
        return caller
    }

    /// The caller of `request` unless it is a client key (which opens only the client routes); 401 or 403.
    func adminSide(_ request: Request) async throws -> Caller {
        let caller = try await caller(request)
        if caller.key?.role == .client {
            throw APIError.permissionDenied("a client key opens only the client routes")
        }
        return caller
    }

    /// Throws 403 unless `caller` may act with `role` on `scope`.
    func check(_ caller: Caller, may role: Role, on scope: AccessScope) throws {
        if caller.key?.role == .client {
            throw APIError.permissionDenied("a client key opens only the client routes")
        }
        switch scope {
        case .project(let project):
            if let own = caller.project, own != project {
                throw APIError.permissionDenied("the key belongs to another project")
            }
            try check(caller.role(on: project), covers: role, where: "on project \(project)", caller)
        case .global:
            if caller.project != nil {
                throw APIError.permissionDenied("this route needs a key for all projects")
            }
            try check(caller.role(on: nil), covers: role, where: "on every project", caller)
        case .any:
            if caller.projects(with: role)?.isEmpty == true {
                try check(nil, covers: role, where: "on any project", caller)
            }
        }
    }

    private func check(_ held: Role?, covers needed: Role, where place: String, _ caller: Caller) throws {
        guard let held, held.covers(needed) else {
            let who = caller.key == nil ? "you have" : "the key has"
            let has = held.map { "\(who) \($0.rawValue) \(place)" } ?? "\(who) no role \(place)"
            throw APIError.permissionDenied("this route needs the \(needed.rawValue) role; \(has)")
        }
    }

    private func person(_ user: User, _ credential: Caller.Credential) async throws -> Caller {
        Caller(credential: credential, person: user, bindings: try await bindings.bindings(of: user.members))
    }

    /// Refuses a cookie-authenticated write without the session's CSRF token or from another origin.
    private func checkCSRF(_ request: Request, session: UserSession) throws {
        guard ![.get, .head, .options].contains(request.method) else { return }
        let refused = APIError(
            .forbidden, "a write made with the console's session needs its CSRF token (X-RC-CSRF) from this origin",
            details: [ErrorDetail(field: "X-RC-CSRF", reason: "CSRF")])
        guard let sent = request.headers[Self.csrfHeader],
            Self.constantTimeEqual(Array(sent.utf8), Array(session.csrfToken.utf8))
        else { throw refused }
        if let origin = request.headers[.origin] {
            guard let publicOrigin, origin.lowercased() == publicOrigin.lowercased() else { throw refused }
        }
    }

    /// The value of cookie `name` in the request's `Cookie` headers.
    static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let trimmed = pair.trimmingCharacters(in: .whitespaces)
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
                let value = String(trimmed[trimmed.index(after: equals)...])
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
