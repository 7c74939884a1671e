import Foundation
import HTTPTypes
import Hummingbird
import Logging
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `/console/auth/*`: the console's sign-in with the team's provider, its callback, and sign-out.
struct SignInController {
    /// nil when single sign-on is not set up: the routes then say so.
    let signIn: SignIn?
    let sessions: SessionStore
    let auth: Authenticator
    let secureCookies: Bool
    /// Whether the console offers signing in with a pasted key (`--console-token-sign-in`).
    let tokenSignIn: Bool
    let logger: Logger

    func addRoutes(to routes: Routes) {
        routes.get("/console/auth/config", use: config)
        routes.get("/console/auth/login", query: ["next"], use: login)
        routes.on(
            .get, "/console/auth/callback",
            query: ["code", "state", "error", "error_description", "iss", "session_state", "scope"], strict: false,
            use: callback)
        routes.post("/console/auth/logout", use: logout)
    }

    /// What the console's sign-in page offers: the provider (by its host) and whether a pasted key is taken.
    @Sendable func config(_ request: Request, context: AppRequestContext) async throws -> Response {
        var provider: JSONValue = .null
        if let signIn {
            let name = URL(string: signIn.provider.metadata.issuer)?.host ?? signIn.provider.metadata.issuer
            provider = .object(["name": .string(name), "loginUrl": .string("/console/auth/login")])
        }
        let body: JSONObject = ["provider": provider, "tokenSignIn": .bool(tokenSignIn)]
        return JSONResponse.make(body)
    }

    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let signIn else { throw Self.notSetUp }
        let next = Self.landing(request.uri.queryParameters["next"].map(String.init))
        let url = try await signIn.start(next: next)
        return Response(status: .found, headers: [.location: url, .cacheControl: "no-store"])
    }

    @Sendable func callback(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let signIn else { throw Self.notSetUp }
        let query = request.uri.queryParameters
        let state = query["state"].map(String.init) ?? ""
        if let error = query["error"] {
            // The state is used up either way, so the same answer cannot be replayed into a sign-in.
            _ = try? await signIn.states.take(state: state)
            let words = query["error_description"].map { ": \($0)" } ?? ""
            return failed("the identity provider did not sign you in (\(error)\(words))")
        }
        guard let code = query["code"], !code.isEmpty, !state.isEmpty else {
            return failed("the identity provider's answer has no code or no state")
        }
        do {
            let (secret, next, _, _) = try await signIn.complete(code: String(code), state: state)
            var headers: HTTPFields = [.location: next, .cacheControl: "no-store"]
            headers[.setCookie] = cookie(secret, maxAge: Int(sessions.maxAge.components.seconds))
            return Response(status: .found, headers: headers)
        } catch let failure as SignIn.Failure {
            return failed(failure.description)
        } catch let failure as OIDCProvider.Failure {
            return failed(failure.description)
        }
    }

    @Sendable func logout(_ request: Request, context: AppRequestContext) async throws -> Response {
        // The console's cookie (with its CSRF token), or a command line's personal token (`remote-config logout`).
        let caller = try await auth.adminSide(request)
        guard case .session(let session) = caller.credential else {
            throw APIError.invalidArgument("sign-out ends a session; a key is revoked with DELETE /v1/apiKeys/{id}")
        }
        try await sessions.revoke(id: session.id)
        var headers: HTTPFields = [:]
        if session.kind == .console { headers[.setCookie] = cookie("", maxAge: 0) }
        return try JSONResponse.make(EmptyBody(), headers: headers)
    }

    private func failed(_ reason: String) -> Response {
        logger.notice("sign-in failed: \(reason)")
        let sentence = reason.prefix(1).uppercased() + reason.dropFirst() + "."
        return SignInPage.response(status: .badRequest, title: "Sign-in failed", message: sentence)
    }

    /// The session cookie: never readable from scripts, sent on top-level navigation from elsewhere (`Lax`, so
    /// a link into the console works) but not on cross-site writes.
    func cookie(_ value: String, maxAge: Int) -> String {
        var cookie = "\(Authenticator.sessionCookie)=\(value); Path=/; HttpOnly; SameSite=Lax; Max-Age=\(maxAge)"
        if secureCookies { cookie += "; Secure" }
        return cookie
    }

    /// Where a sign-in lands: `next` when it is a path under `/console` (never another site), else the console.
    static func landing(_ next: String?) -> String {
        guard let next, next == "/console" || next.hasPrefix("/console/") || next.hasPrefix("/console?"),
            !next.contains("//"), !next.contains("\\"), next.count <= 512,
            !next.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return "/console" }
        return next
    }

    static let notSetUp = APIError(
        .notFound, "single sign-on is not set up on this server (--oidc-issuer)",
        details: [ErrorDetail(field: "oidcIssuer", reason: "SSO_NOT_CONFIGURED")])
}
