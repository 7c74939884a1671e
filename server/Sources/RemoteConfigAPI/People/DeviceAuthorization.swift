import Foundation

/// `POST /v1/auth/device`: what the command line shows the person (RFC 8628, 3.2).
public struct DeviceAuthorization: Codable, Sendable, Equatable {
    public var deviceCode: String
    public var userCode: String
    public var verificationUri: String
    public var verificationUriComplete: String?
    public var expiresIn: Int
    public var interval: Int

    public init(
        deviceCode: String, userCode: String, verificationUri: String, verificationUriComplete: String?,
        expiresIn: Int, interval: Int
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationUri = verificationUri
        self.verificationUriComplete = verificationUriComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }
}

/// `POST /v1/auth/device:token`.
public struct DeviceTokenRequest: Codable, Sendable, Equatable {
    public var deviceCode: String

    public init(deviceCode: String) { self.deviceCode = deviceCode }
}

/// The personal token a finished device sign-in gives, once.
public struct PersonalToken: Codable, Sendable, Equatable {
    /// `rc_user_…`: a session bound to the person, used as `Authorization: Bearer`.
    public var token: String
    public var expireTime: Date
    public var user: PersonBody

    public init(token: String, expireTime: Date, user: PersonBody) {
        self.token = token
        self.expireTime = expireTime
        self.user = user
    }
}

/// `POST /v1/auth/loopback`: a command line's sign-in through its own listener on 127.0.0.1 (RFC 8252), for a
/// provider without a device endpoint. The command line keeps the PKCE verifier of `codeChallenge`.
public struct LoopbackSignInRequest: Codable, Sendable, Equatable {
    public var redirectUri: String
    public var codeChallenge: String

    public init(redirectUri: String, codeChallenge: String) {
        self.redirectUri = redirectUri
        self.codeChallenge = codeChallenge
    }
}

/// Where to send the person's browser, and the state the provider will hand back.
public struct LoopbackSignIn: Codable, Sendable, Equatable {
    public var authorizationUrl: String
    public var state: String

    public init(authorizationUrl: String, state: String) {
        self.authorizationUrl = authorizationUrl
        self.state = state
    }
}

/// `POST /v1/auth/loopback:token`: the code and state the listener received, and the PKCE verifier.
public struct LoopbackTokenRequest: Codable, Sendable, Equatable {
    public var code: String
    public var state: String
    public var codeVerifier: String

    public init(code: String, state: String, codeVerifier: String) {
        self.code = code
        self.state = state
        self.codeVerifier = codeVerifier
    }
}
