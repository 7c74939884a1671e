import Foundation

/// A signed-in browser or a command line's personal token, bound to one person.
public struct UserSession: Sendable, Equatable {
    /// What the session is for: the console's cookie, or the token `remote-config login` saves.
    public enum Kind: String, Sendable {
        case console, personal
    }

    public let id: String
    public let userID: String
    public let kind: Kind
    /// What every cookie-authenticated write must send back in `X-RC-CSRF`.
    public let csrfToken: String
    public let createTime: Date
    public let lastSeenTime: Date
    /// The absolute end; the idle end is `lastSeenTime` plus the idle timeout.
    public let expireTime: Date

    /// Creates a session as the store reads it.
    public init(
        id: String, userID: String, kind: Kind, csrfToken: String, createTime: Date, lastSeenTime: Date,
        expireTime: Date
    ) {
        self.id = id
        self.userID = userID
        self.kind = kind
        self.csrfToken = csrfToken
        self.createTime = createTime
        self.lastSeenTime = lastSeenTime
        self.expireTime = expireTime
    }
}

/// The random secrets of sessions, sign-in states and CSRF tokens, and the hashes the database keeps.
public enum SessionSecret {
    /// A new secret: `prefix` and 43 base64url characters (256 bits of randomness).
    public static func generate(prefix: String = "") -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return prefix + Data(bytes).base64URLEncoded()
    }
}

extension Data {
    /// RFC 4648's URL-safe base64 without padding, as OAuth and PKCE use it.
    public func base64URLEncoded() -> String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
