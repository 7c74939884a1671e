import Foundation
import Hummingbird
import Logging
import RemoteConfigAPI
import RemoteConfigStore

/// `/v1/auth/device*`: the command line's sign-in with the device authorization grant (RFC 8628), through the
/// server so that the client secret stays here. The token it ends with is a personal session.
struct DeviceSignInController {
    let signIn: SignIn?
    let sessions: SessionStore
    let polls = DevicePolls()

    func addRoutes(to routes: Routes) {
        routes.post("/v1/auth/device", use: start)
        routes.post("/v1/auth/device:token", use: token)
    }

    @Sendable func start(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let signIn else { throw SignInController.notSetUp }
        guard let endpoint = signIn.provider.metadata.deviceAuthorizationEndpoint else {
            throw APIError(
                .notFound, "the identity provider offers no device sign-in; sign in through a browser instead",
                details: [ErrorDetail(field: "deviceAuthorizationEndpoint", reason: "DEVICE_FLOW_UNSUPPORTED")])
        }
        let (status, answer) = try await call {
            try await signIn.provider.postForm(endpoint, [("scope", "openid email profile")])
        }
        guard status == 200, let deviceCode = answer["device_code"]?.stringValue,
            let userCode = answer["user_code"]?.stringValue,
            let uri = (answer["verification_uri"] ?? answer["verification_url"])?.stringValue
        else {
            throw APIError(
                .badGateway,
                "the identity provider refused the device sign-in (\(answer["error"]?.stringValue ?? "status \(status)"))",
                statusName: .unavailable)
        }
        let expires = answer["expires_in"]?.doubleValue.map { Int($0) } ?? 600
        let interval = answer["interval"]?.doubleValue.map { Int($0) } ?? 5
        polls.started(deviceCode, interval: interval, expiresIn: expires)
        return try JSONResponse.make(
            DeviceAuthorization(
                deviceCode: deviceCode, userCode: userCode, verificationUri: uri,
                verificationUriComplete: answer["verification_uri_complete"]?.stringValue, expiresIn: expires,
                interval: interval))
    }

    @Sendable func token(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let signIn else { throw SignInController.notSetUp }
        let body = try await JSONBody.decode(DeviceTokenRequest.self, request, context: context)
        guard !body.deviceCode.isEmpty, body.deviceCode.count <= 2048 else {
            throw APIError.invalidField(
                "deviceCode", reason: "REQUIRED", "deviceCode is the code POST /v1/auth/device gave")
        }
        if polls.tooSoon(body.deviceCode) { throw Self.pending("slow_down", status: 400) }
        let (status, answer) = try await call {
            try await signIn.provider.postForm(
                signIn.provider.metadata.tokenEndpoint,
                [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", body.deviceCode)])
        }
        guard status == 200, let idToken = answer["id_token"]?.stringValue else {
            throw Self.pending(answer["error"]?.stringValue, status: status)
        }
        let person: SignedInPerson
        do {
            person = try await signIn.verifiedPerson(
                idToken: idToken, nonce: nil, accessToken: answer["access_token"]?.stringValue)
        } catch let failure as SignIn.Failure {
            throw APIError(
                .badRequest, "sign-in failed: \(failure.description)",
                details: [ErrorDetail(field: "deviceCode", reason: "INVALID_TOKEN")])
        }
        let user = try await signIn.users.signedIn(person)
        let (session, secret) = try await sessions.create(user: user.id, kind: .personal)
        signIn.logger.info("signed in on a command line", metadata: ["user": "users/\(user.id)"])
        return try JSONResponse.make(
            PersonalToken(token: secret, expireTime: session.expireTime, user: PeopleJSON.person(user)))
    }

    /// RFC 8628, 3.5: what the provider says while the person has not finished, as the API's errors.
    static func pending(_ error: String?, status: Int) -> APIError {
        switch error {
        case "authorization_pending":
            return APIError(
                .preconditionRequired, "waiting for the person to sign in at the provider",
                details: [ErrorDetail(field: "deviceCode", reason: "AUTHORIZATION_PENDING")])
        case "slow_down":
            return APIError(
                .tooManyRequests, "polled faster than the interval: wait longer between polls",
                details: [ErrorDetail(field: "deviceCode", reason: "SLOW_DOWN")])
        case "expired_token":
            return APIError(
                .badRequest, "the device code expired: run the sign-in again",
                details: [ErrorDetail(field: "deviceCode", reason: "EXPIRED_TOKEN")])
        case "access_denied":
            return APIError(
                .badRequest, "the sign-in was refused at the provider",
                details: [ErrorDetail(field: "deviceCode", reason: "ACCESS_DENIED")])
        default:
            return APIError(
                .badRequest, "the provider refused the device code (\(error ?? "status \(status)"))",
                details: [ErrorDetail(field: "deviceCode", reason: "INVALID_GRANT")])
        }
    }

    private func call<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let failure as OIDCProvider.Failure {
            throw APIError(.badGateway, failure.description, statusName: .unavailable)
        }
    }
}
