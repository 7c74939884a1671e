import ArgumentParser
import Foundation
import RemoteConfigServer

/// `serve`'s single sign-on settings (`--oidc-*`, sessions, the console's token sign-in); what each means and
/// how it is checked is in `ServeSetting`'s list.
struct SignInOptions: ParsableArguments {
    @Option(help: help("oidc-issuer")) var oidcIssuer: String?
    @Option(help: help("oidc-client-id")) var oidcClientId: String?

    @Option(help: "A file holding the client secret (or RC_OIDC_CLIENT_SECRET; none for a public client).")
    var oidcClientSecretFile: String?

    @Option(help: help("oidc-groups-claim")) var oidcGroupsClaim: String?
    @Option(help: help("oidc-admins")) var oidcAdmins: String?
    @Option(help: help("session-max-age")) var sessionMaxAge: String?
    @Option(help: help("session-idle-timeout")) var sessionIdleTimeout: String?
    @Option(help: help("console-token-sign-in")) var consoleTokenSignIn: String?

    /// Each setting given as a flag, by its flag's name.
    var given: [String: String?] {
        [
            "oidc-issuer": oidcIssuer,
            "oidc-client-id": oidcClientId,
            "oidc-groups-claim": oidcGroupsClaim,
            "oidc-admins": oidcAdmins,
            "session-max-age": sessionMaxAge,
            "session-idle-timeout": sessionIdleTimeout,
            "console-token-sign-in": consoleTokenSignIn,
        ]
    }

    /// The client secret: read from `--oidc-client-secret-file`, else `RC_OIDC_CLIENT_SECRET` itself; nil for a
    /// public client.
    func clientSecret(_ environment: [String: String]) throws -> String? {
        if let path = oidcClientSecretFile {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ServerConfiguration.Invalid("--oidc-client-secret-file: cannot read \(path)")
            }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return environment["RC_OIDC_CLIENT_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
    }
}
