import Foundation

/// Single sign-on with an OpenID Connect provider (`--oidc-*`), and how long its sessions live.
public struct SignInSettings: Sendable {
    /// The provider's issuer URL; its discovery document is read at start.
    public var issuer: String
    /// The client registered at the provider for this server.
    public var clientID: String
    /// The client secret; nil for a public client.
    public var clientSecret: String?
    /// The ID-token (or userinfo) claim that lists a person's groups.
    public var groupsClaim = "groups"
    /// Members made admins of every project at start (`--oidc-admins`): `user:<email>`, `group:<name>` or
    /// `domain:<domain>`; a bare email is a `user:`.
    public var admins: [String] = []
    /// The address people reach the server at; the redirect URI is `<publicURL>/console/auth/callback`.
    public var publicURL: String

    /// Settings for `issuer` and `clientID`, reached by people at `publicURL`.
    public init(issuer: String, clientID: String, clientSecret: String? = nil, publicURL: String) {
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.publicURL = publicURL
    }

    /// The redirect URI registered at the provider.
    public var redirectURI: String { publicURLWithoutSlash + "/console/auth/callback" }

    /// Whether session cookies are `Secure`.
    public var secureCookies: Bool { publicURL.lowercased().hasPrefix("https://") }

    var publicURLWithoutSlash: String { publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL }

    /// `user:`, `group:` or `domain:` members, a bare email read as `user:`; nil for one that is neither.
    public static func member(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        for kind in ["user:", "group:", "domain:"] where trimmed.hasPrefix(kind) {
            let rest = trimmed.dropFirst(kind.count)
            guard !rest.isEmpty, rest.count <= 320 else { return nil }
            return kind == "group:" ? trimmed : kind + rest.lowercased()
        }
        guard trimmed.contains("@"), !trimmed.contains(":"), trimmed.count <= 320 else { return nil }
        return "user:" + trimmed.lowercased()
    }
}

/// `scheme://host[:port]` of a URL, as browsers send `Origin`.
func origin(of url: String) -> String? {
    guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), let host = parsed.host?.lowercased()
    else { return nil }
    let defaultPort = scheme == "https" ? 443 : 80
    if let port = parsed.port, port != defaultPort { return "\(scheme)://\(host):\(port)" }
    return "\(scheme)://\(host)"
}
