import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigStore

/// `/v1/auth/loopback*`: the command line's sign-in through a redirect to its own listener on 127.0.0.1 (OAuth
/// 2.0 for native apps, RFC 8252), for providers without a device endpoint. The server exchanges the code (the
/// client secret stays here); the command line holds the PKCE verifier, so a code seen by anyone else is of no
/// use to them.
struct LoopbackSignInController {
    let signIn: SignIn?

    func addRoutes(to routes: Routes) {
        routes.post("/v1/auth/loopback", use: start)
        routes.post("/v1/auth/loopback:token", use: token)
    }

    @Sendable func start(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let signIn else { throw SignInController.notSetUp }
        let body = try await JSONBody.decode(LoopbackSignInRequest.self, request, context: context)
        guard Self.isLoopback(body.redirectUri) else {
            throw APIError.invalidField(
                "redirectUri", reason: "NOT_LOOPBACK",
                "redirectUri must be http://127.0.0.1:<port>/… or http://[::1]:<port>/…, without query or fragment")
        }
        guard body.codeChallenge.count == 43,
            body.codeChallenge.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else {
            throw APIError.invalidField(
                "codeChallenge", reason: "INVALID_CODE_CHALLENGE",
                "codeChallenge is the base64url SHA-256 of the verifier (43 characters, RFC 7636 S256)")
        }
        let (url, state) = try await signIn.startLoopback(
            redirectURI: body.redirectUri, codeChallenge: body.codeChallenge)
        return try JSONResponse.make(LoopbackSignIn(authorizationUrl: url, state: state))
    }

    @Sendable func token(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let signIn else { throw SignInController.notSetUp }
        let body = try await JSONBody.decode(LoopbackTokenRequest.self, request, context: context)
        for (field, value) in [("code", body.code), ("state", body.state), ("codeVerifier", body.codeVerifier)]
        where value.isEmpty || value.count > 2048 {
            throw APIError.invalidField(field, reason: "REQUIRED", "\(field) is what the sign-in's redirect carried")
        }
        do {
            let (secret, _, user, session) = try await signIn.complete(
                code: body.code, state: body.state, loopbackVerifier: body.codeVerifier)
            return try JSONResponse.make(
                PersonalToken(token: secret, expireTime: session.expireTime, user: PeopleJSON.person(user)))
        } catch let failure as SignIn.Failure {
            throw APIError(
                .badRequest, "sign-in failed: \(failure.description)",
                details: [ErrorDetail(field: "code", reason: "SIGN_IN_FAILED")])
        } catch let failure as OIDCProvider.Failure {
            throw APIError(.badGateway, failure.description, statusName: .unavailable)
        }
    }

    /// `http://127.0.0.1:<port>/path` or `http://[::1]:<port>/path`: RFC 8252's loopback redirect, nothing else.
    static func isLoopback(_ text: String) -> Bool {
        guard text.count <= 200, let url = URLComponents(string: text), url.scheme == "http",
            url.host == "127.0.0.1" || url.host == "[::1]" || url.host == "::1", let port = url.port,
            (1...65535).contains(port), url.query == nil, url.fragment == nil, url.user == nil
        else { return false }
        return true
    }
}
