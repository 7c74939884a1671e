import Foundation
import Logging

/// One setting of `serve`: its flag, its variable, its help, the default that help shows (read from
/// `ServerConfiguration`'s own, so the two cannot disagree) and how its text is checked and stored.
/// `ServeSetting.all` is the one list; the command line only binds each to an option.
public struct ServeSetting: Sendable {
    /// The flag without its dashes (`header-timeout`).
    public let flag: String
    /// The environment variable (`RC_HEADER_TIMEOUT`).
    public let variable: String
    /// What it is for, in a few words, without the variable or the default.
    let summary: String
    /// The default as help shows it; nil when there is none to show.
    public let defaultText: String?
    /// Checks the text and stores it; an error names the setting (`label`) and why.
    let read: @Sendable (String, inout ServeValues) throws -> Void

    /// The line `serve --help` shows.
    public var help: String {
        "\(summary) (\(variable)\(defaultText.map { "; default \($0)" } ?? ""))."
    }

    /// How errors name it: the flag and the variable.
    public var label: String { "--\(flag) / \(variable)" }

    /// Every setting `serve` reads this way, in the order help lists them.
    public static let all: [ServeSetting] = connection + limits + insights + people

    /// Each setting's text from its flag (`given`, by flag name) else its variable, read into a configuration.
    /// An empty variable counts as unset, as a container's `RC_X=` line means; a flag given empty is read, so
    /// it fails where empty is not a value.
    public static func configuration(given: [String: String], environment: [String: String]) throws
        -> ServeValues
    {
        var values = ServeValues()
        for setting in all {
            let text = given[setting.flag] ?? environment[setting.variable].flatMap { $0.isEmpty ? nil : $0 }
            if let text { try setting.read(text, &values) }
        }
        return values
    }
}

/// What `serve`'s settings are read into: the configuration, and the parts of single sign-on, which become a
/// `SignInSettings` only together (`signInSettings`).
public struct ServeValues: Sendable {
    public var configuration = ServerConfiguration()
    var issuer: String?
    var clientID: String?
    var groupsClaim: String?
    var admins: [String]?

    /// The sign-in settings, nil without an issuer; `clientSecret` is read apart (a file, or a variable that holds
    /// the secret itself).
    public func signInSettings(clientSecret: String?) throws -> SignInSettings? {
        guard let issuer else {
            if clientID != nil {
                throw ServerConfiguration.Invalid("--oidc-client-id / RC_OIDC_CLIENT_ID: needs --oidc-issuer")
            }
            return nil
        }
        guard let clientID else {
            throw ServerConfiguration.Invalid("--oidc-client-id / RC_OIDC_CLIENT_ID: required with --oidc-issuer")
        }
        guard let publicURL = configuration.webhooks.publicURL else {
            throw ServerConfiguration.Invalid(
                "--public-url / RC_PUBLIC_URL: required with --oidc-issuer (the redirect URI is <public-url>/console/auth/callback)"
            )
        }
        var settings = SignInSettings(
            issuer: issuer, clientID: clientID, clientSecret: clientSecret, publicURL: publicURL)
        if let groupsClaim { settings.groupsClaim = groupsClaim }
        if let admins { settings.admins = admins }
        return settings
    }
}

// The kinds of setting: each checks its text one way and shows its default one way.
extension ServeSetting {
    typealias Field<Value> = WritableKeyPath<ServerConfiguration, Value> & Sendable

    static let defaults = ServerConfiguration()

    /// Text stored as it is.
    static func text(_ flag: String, _ variable: String, _ summary: String, _ field: Field<String>) -> ServeSetting {
        ServeSetting(flag: flag, variable: variable, summary: summary, defaultText: defaults[keyPath: field]) {
            text, values in values.configuration[keyPath: field] = text
        }
    }

    /// An `http` or `https` URL with a host and no query, as the Google Play settings take it.
    static func baseURL(_ flag: String, _ variable: String, _ summary: String, _ field: Field<String>) -> ServeSetting {
        ServeSetting(flag: flag, variable: variable, summary: summary, defaultText: defaults[keyPath: field]) {
            text, values in
            guard ServerConfiguration.isBaseURL(text) else {
                throw ServerConfiguration.Invalid(
                    "--\(flag) / \(variable): '\(text)' is not an http(s) URL with a host and without a query")
            }
            values.configuration[keyPath: field] = text
        }
    }

    /// Text stored as it is, with no default.
    static func optionalText(_ flag: String, _ variable: String, _ summary: String, _ field: Field<String?>)
        -> ServeSetting
    {
        ServeSetting(flag: flag, variable: variable, summary: summary, defaultText: nil) { text, values in
            values.configuration[keyPath: field] = text
        }
    }

    /// A positive number of seconds, decimals allowed, up to a day.
    static func seconds(_ flag: String, _ variable: String, _ summary: String, _ field: Field<Duration>)
        -> ServeSetting
    {
        let shown = defaults[keyPath: field].components
        return ServeSetting(flag: flag, variable: variable, summary: summary, defaultText: "\(shown.seconds)") {
            text, values in
            guard let value = Double(text), value > 0, value <= 86_400 else {
                throw ServerConfiguration.Invalid(
                    "--\(flag) / \(variable): '\(text)' is not a number of seconds between 0 and 86400")
            }
            values.configuration[keyPath: field] = .milliseconds(Int64((value * 1000).rounded()))
        }
    }

    /// A whole number of seconds from 1 to a year.
    static func wholeSeconds(_ flag: String, _ variable: String, _ summary: String, _ field: Field<Duration>)
        -> ServeSetting
    {
        let shown = defaults[keyPath: field].components
        return ServeSetting(flag: flag, variable: variable, summary: summary, defaultText: "\(shown.seconds)") {
            text, values in
            guard let value = Int(text), (1...31_536_000).contains(value) else {
                throw ServerConfiguration.Invalid(
                    "--\(flag) / \(variable): '\(text)' is not a whole number of seconds from 1 to 31536000")
            }
            values.configuration[keyPath: field] = .seconds(value)
        }
    }

    /// A whole number; `problem` says what it must be.
    static func whole(
        _ flag: String, _ variable: String, _ summary: String, _ field: Field<Int>, problem: String
    ) -> ServeSetting {
        ServeSetting(flag: flag, variable: variable, summary: summary, defaultText: "\(defaults[keyPath: field])") {
            text, values in
            guard let value = Int(text) else {
                throw ServerConfiguration.Invalid("--\(flag) / \(variable): '\(text)' is not \(problem)")
            }
            values.configuration[keyPath: field] = value
        }
    }

    /// A whole number from 1 to `maximum`, whose default (nil) is worked out at start and described by `shown`.
    static func count(
        _ flag: String, _ variable: String, _ summary: String, _ field: Field<Int?>, maximum: Int? = nil,
        shown: String
    ) -> ServeSetting {
        ServeSetting(flag: flag, variable: variable, summary: summary, defaultText: shown) { text, values in
            guard let value = Int(text), value > 0, value <= maximum ?? Int.max else {
                let range = maximum.map { "a whole number from 1 to \($0)" } ?? "a positive whole number"
                throw ServerConfiguration.Invalid("--\(flag) / \(variable): '\(text)' is not \(range)")
            }
            values.configuration[keyPath: field] = value
        }
    }

    /// on or off (also true/false, 1/0).
    static func onOff(_ flag: String, _ variable: String, _ summary: String, _ field: Field<Bool>) -> ServeSetting {
        ServeSetting(
            flag: flag, variable: variable, summary: summary + ": on or off",
            defaultText: defaults[keyPath: field] ? "on" : "off"
        ) { text, values in
            switch text.lowercased() {
            case "on", "true", "1": values.configuration[keyPath: field] = true
            case "off", "false", "0": values.configuration[keyPath: field] = false
            default: throw ServerConfiguration.Invalid("--\(flag) / \(variable): '\(text)' is not on or off")
            }
        }
    }

    /// An http(s) URL with a host.
    static func isHTTPURL(_ text: String) -> Bool {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            return false
        }
        return url.host?.isEmpty == false
    }
}
