import Crypto
import Foundation
import Logging
import RemoteConfigCore
import RemoteConfigStore

/// The authorization code flow with PKCE (OpenID Connect Core 3.1, RFC 7636): the redirect to the provider,
/// and the callback that turns its code into a verified person and a session.
struct SignIn: Sendable {
    let provider: OIDCProvider
    let states: SignInStateStore
    let users: UserStore
    let sessions: SessionStore
    let logger: Logger

    /// Why a sign-in failed: said to the person on the error page, and logged for the operator.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The provider's authorization URL for a new sign-in that lands on `next` (a path under `/console`).
    func start(next: String) async throws -> String {
        let state = SessionSecret.generate()
        let nonce = SessionSecret.generate()
        let verifier = SessionSecret.generate()
        let challenge = Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded()
        try await states.save(state: state, nonce: nonce, codeVerifier: verifier, nextPath: next)
        return authorizationURL(
            state: state, nonce: nonce, challenge: challenge, redirectURI: provider.settings.redirectURI)
    }

    /// The provider's authorization URL for a command line's sign-in through its loopback listener
    /// (`redirectURI`, RFC 8252), with the PKCE challenge the command line made (it keeps the verifier).
    func startLoopback(redirectURI: String, codeChallenge: String) async throws -> (url: String, state: String) {
        let state = SessionSecret.generate()
        let nonce = SessionSecret.generate()
        try await states.save(
            state: state, nonce: nonce, codeVerifier: nil, nextPath: "", redirectURI: redirectURI)
        return (authorizationURL(state: state, nonce: nonce, challenge: codeChallenge, redirectURI: redirectURI), state)
    }

    private func authorizationURL(state: String, nonce: String, challenge: String, redirectURI: String) -> String {
        var scopes = ["openid", "email", "profile"]
        if provider.metadata.scopesSupported?.contains("groups") == true { scopes.append("groups") }
        let query = FormEncoding.encode([
            ("response_type", "code"), ("client_id", provider.settings.clientID), ("redirect_uri", redirectURI),
            ("scope", scopes.joined(separator: " ")), ("state", state), ("nonce", nonce),
            ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ])
        let endpoint = provider.metadata.authorizationEndpoint
        return endpoint + (endpoint.contains("?") ? "&" : "?") + query
    }

    /// Completes a sign-in: the state used once, the code exchanged, the ID token verified, the person
    /// recorded, a session made (a console one; a personal one for a command line's loopback sign-in, which
    /// sends its `codeVerifier`). Answers the session's secret, where to land, and the session.
    func complete(code: String, state: String, loopbackVerifier: String? = nil) async throws -> (
        secret: String, next: String, user: User, session: UserSession
    ) {
        guard let pending = try await states.take(state: state) else {
            throw Failure(description: "this sign-in link is unknown, was used already, or is older than 10 minutes")
        }
        // A console state answers only the console's callback, a command line's only its own exchange.
        guard (pending.redirectURI == nil) == (loopbackVerifier == nil),
            let verifier = pending.codeVerifier ?? loopbackVerifier
        else { throw Failure(description: "this sign-in was started elsewhere") }
        let (status, answer) = try await provider.postForm(
            provider.metadata.tokenEndpoint,
            [
                ("grant_type", "authorization_code"), ("code", code),
                ("redirect_uri", pending.redirectURI ?? provider.settings.redirectURI), ("code_verifier", verifier),
            ])
        guard status == 200, let idToken = answer["id_token"]?.stringValue else {
            let error = answer["error"]?.stringValue ?? "status \(status)"
            throw Failure(description: "the provider refused the sign-in code (\(error))")
        }
        let person = try await verifiedPerson(
            idToken: idToken, nonce: pending.nonce, accessToken: answer["access_token"]?.stringValue)
        let user = try await users.signedIn(person)
        let (session, secret) = try await sessions.create(
            user: user.id, kind: pending.redirectURI == nil ? .console : .personal)
        logger.info("signed in", metadata: ["user": "users/\(user.id)", "email": "\(user.email)"])
        return (secret, pending.nextPath, user, session)
    }

    /// The person an ID token describes, completed from the userinfo endpoint for what the token lacks.
    func verifiedPerson(idToken: String, nonce: String?, accessToken: String?) async throws -> SignedInPerson {
        let claims: IDTokenClaims
        let payload: JSONValue
        do {
            (claims, payload) = try await IDTokenVerifier(provider: provider).verify(idToken, nonce: nonce)
        } catch let refusal as IDTokenVerifier.Refusal {
            throw Failure(description: refusal.description)
        }
        var person = SignedInPerson(
            issuer: claims.issuer, subject: claims.subject, email: claims.email ?? "",
            emailVerified: claims.emailVerified ?? false,
            displayName: claims.name ?? claims.preferredUsername ?? claims.email ?? "",
            groups: Self.groups(payload[provider.settings.groupsClaim]) ?? [])
        let lacking = person.email.isEmpty || payload[provider.settings.groupsClaim] == nil || claims.name == nil
        if lacking, let endpoint = provider.metadata.userinfoEndpoint, let accessToken {
            do {
                let info = try await provider.getJSON(endpoint, accessToken: accessToken)
                // OpenID Connect Core 5.3.2: the userinfo's sub must be the ID token's, or nothing of it counts.
                guard info["sub"]?.stringValue == claims.subject else {
                    throw Failure(description: "the provider's userinfo is about someone else (sub differs)")
                }
                if person.email.isEmpty, let email = info["email"]?.stringValue {
                    person.email = email
                    person.emailVerified =
                        info["email_verified"]?.boolValue ?? (info["email_verified"]?.stringValue == "true")
                }
                if claims.name == nil, let name = info["name"]?.stringValue { person.displayName = name }
                if payload[provider.settings.groupsClaim] == nil,
                    let groups = Self.groups(info[provider.settings.groupsClaim])
                {
                    person.groups = groups
                }
            } catch let failure as Failure {
                throw failure
            } catch {
                logger.warning("the provider's userinfo could not be read: \(error)")
            }
        }
        person.email = String(person.email.prefix(320))
        person.displayName = String(person.displayName.prefix(200))
        return person
    }

    /// A groups claim: a list of names (a single name is a list of one); bounded, as any input is.
    static func groups(_ value: JSONValue?) -> [String]? {
        guard let value else { return nil }
        if let one = value.stringValue { return [String(one.prefix(256))] }
        guard let list = value.arrayValue else { return nil }
        return Array(list.compactMap { $0.stringValue.map { String($0.prefix(256)) } }.prefix(1000))
    }
}
