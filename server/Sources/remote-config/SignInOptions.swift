import ArgumentParser
import Foundation
import RemoteConfigServer

/// `serve`'s single sign-on settings (`--oidc-*`, sessions, the console's token sign-in), each with its
/// `RC_*` variable; a flag beats a variable.
struct SignInOptions: ParsableArguments {
    @Option(help: "The OpenID Connect provider's issuer URL; its discovery document is read at start (RC_OIDC_ISSUER).")
    var oidcIssuer: String?

    @Option(help: "The client registered at the provider for this server (RC_OIDC_CLIENT_ID).")
    var oidcClientId: String?

    @Option(help: "A file holding the client secret (or RC_OIDC_CLIENT_SECRET; none for a public client).")
    var oidcClientSecretFile: String?

    @Option(help: "The ID-token claim listing a person's groups (RC_OIDC_GROUPS_CLAIM; default groups).")
    var oidcGroupsClaim: String?

    @Option(
        help:
            "Members made admins of every project at start, comma-separated: emails, group:NAME, domain:NAME (RC_OIDC_ADMINS)."
    )
    var oidcAdmins: String?

    @Option(help: "Seconds a person's session lasts at most (RC_SESSION_MAX_AGE; default 43200).")
    var sessionMaxAge: String?

    @Option(help: "Seconds without a call after which a session ends (RC_SESSION_IDLE_TIMEOUT; default 7200).")
    var sessionIdleTimeout: String?

    @Option(
        help:
            "Whether the console offers signing in with a pasted key: on or off (RC_CONSOLE_TOKEN_SIGN_IN; default on)."
    )
    var consoleTokenSignIn: String?

    /// Reads the settings into `configuration`; `publicURL` is `--public-url`'s value, which the redirect URI
    /// is made from.
    func apply(to configuration: inout ServerConfiguration, publicURL: String?, _ environment: [String: String])
        throws
    {
        func value(_ flag: String?, _ variable: String) -> String? {
            (flag ?? environment[variable]).flatMap { $0.isEmpty ? nil : $0 }
        }
        if let text = value(sessionMaxAge, "RC_SESSION_MAX_AGE") {
            configuration.sessionMaxAge = try Self.seconds(text, "--session-max-age / RC_SESSION_MAX_AGE")
        }
        if let text = value(sessionIdleTimeout, "RC_SESSION_IDLE_TIMEOUT") {
            configuration.sessionIdleTimeout = try Self.seconds(
                text, "--session-idle-timeout / RC_SESSION_IDLE_TIMEOUT")
        }
        if let text = value(consoleTokenSignIn, "RC_CONSOLE_TOKEN_SIGN_IN") {
            switch text.lowercased() {
            case "on", "true", "1": configuration.consoleTokenSignIn = true
            case "off", "false", "0": configuration.consoleTokenSignIn = false
            default:
                throw ServerConfiguration.Invalid(
                    "--console-token-sign-in / RC_CONSOLE_TOKEN_SIGN_IN: '\(text)' is not on or off")
            }
        }
        guard let issuer = value(oidcIssuer, "RC_OIDC_ISSUER") else {
            if value(oidcClientId, "RC_OIDC_CLIENT_ID") != nil {
                throw ServerConfiguration.Invalid("--oidc-client-id / RC_OIDC_CLIENT_ID: needs --oidc-issuer")
            }
            return
        }
        guard let url = URL(string: issuer), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host?.isEmpty == false
        else {
            throw ServerConfiguration.Invalid("--oidc-issuer / RC_OIDC_ISSUER: '\(issuer)' is not an http(s) URL")
        }
        guard let clientID = value(oidcClientId, "RC_OIDC_CLIENT_ID") else {
            throw ServerConfiguration.Invalid("--oidc-client-id / RC_OIDC_CLIENT_ID: required with --oidc-issuer")
        }
        guard let publicURL else {
            throw ServerConfiguration.Invalid(
                "--public-url / RC_PUBLIC_URL: required with --oidc-issuer (the redirect URI is <public-url>/console/auth/callback)"
            )
        }
        var secret: String?
        if let path = oidcClientSecretFile {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ServerConfiguration.Invalid("--oidc-client-secret-file: cannot read \(path)")
            }
            secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        } else if let text = environment["RC_OIDC_CLIENT_SECRET"], !text.isEmpty {
            secret = text
        }
        var settings = SignInSettings(issuer: issuer, clientID: clientID, clientSecret: secret, publicURL: publicURL)
        if let claim = value(oidcGroupsClaim, "RC_OIDC_GROUPS_CLAIM") { settings.groupsClaim = claim }
        if let admins = value(oidcAdmins, "RC_OIDC_ADMINS") {
            settings.admins = try admins.split(separator: ",").map { item in
                guard let member = SignInSettings.member(String(item)) else {
                    throw ServerConfiguration.Invalid(
                        "--oidc-admins / RC_OIDC_ADMINS: '\(item)' is not an email, group:NAME or domain:NAME")
                }
                return member
            }
        }
        configuration.signIn = settings
    }

    private static func seconds(_ text: String, _ setting: String) throws -> Duration {
        guard let value = Int(text), (1...31_536_000).contains(value) else {
            throw ServerConfiguration.Invalid(
                "\(setting): '\(text)' is not a whole number of seconds from 1 to 31536000")
        }
        return .seconds(value)
    }
}
