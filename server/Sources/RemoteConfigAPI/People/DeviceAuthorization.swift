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
