import Foundation
import Logging

// Every setting of `serve` read from a flag or its variable. Not here, each for its reason: `--database-url`
// (shared with `migrate`, and also read from `DATABASE_URL`), the secrets key (shared with `secrets rotate-key`),
// `RC_ADMIN_TOKEN` (a variable only: a token on a command line is seen by every user of the machine), and the
// OIDC client secret (a file for the flag, the secret itself for the variable).
extension ServeSetting {
    /// Where it listens and keeps its data.
    static let connection: [ServeSetting] = [
        .text("host", "RC_HOST", "Address to listen on", \.host),
        ServeSetting(
            flag: "port", variable: "RC_PORT", summary: "Port to listen on, 0 for any free port",
            defaultText: "\(defaults.port)"
        ) { text, values in
            guard let port = Int(text) else {
                throw ServerConfiguration.Invalid("--port / RC_PORT: '\(text)' is not a port number")
            }
            values.configuration.port = port
        },
        .text(
            "data-dir", "RC_DATA_DIR", "Folder of the embedded PostgreSQL and the generated admin token",
            \.dataDirectory),
        ServeSetting(
            flag: "log-level", variable: "RC_LOG_LEVEL",
            summary: "Log level: trace, debug, info, notice, warning, error, critical",
            defaultText: defaults.logLevel.rawValue
        ) { text, values in
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                throw ServerConfiguration.Invalid(
                    "--log-level / RC_LOG_LEVEL: '\(text)' is not one of trace, debug, info, notice, warning, error, critical"
                )
            }
            values.configuration.logLevel = level
        },
        .optionalText(
            "postgres-bin-dir", "RC_POSTGRES_BIN_DIR",
            "Folder with initdb, pg_ctl and postgres for the embedded database", \.postgresBinDirectory),
        ServeSetting(
            flag: "public-url", variable: "RC_PUBLIC_URL",
            summary:
                "The address people reach this server at: console links in Slack messages, the sign-in redirect URI",
            defaultText: nil
        ) { text, values in
            guard isHTTPURL(text) else {
                throw ServerConfiguration.Invalid("--public-url / RC_PUBLIC_URL: '\(text)' is not an http(s) URL")
            }
            values.configuration.webhooks.publicURL = text
        },
        .count(
            "event-loops", "RC_EVENT_LOOPS", "Event loops serving connections", \.eventLoops,
            maximum: EventLoopCount.maximum, shown: "one per core"),
    ]

    /// What one client or connection may take, and where outbound calls may go.
    static let limits: [ServeSetting] = [
        ServeSetting(
            flag: "fetch-rate-limit", variable: "RC_FETCH_RATE_LIMIT",
            summary: "Fetches per second allowed per client key, 429 beyond it", defaultText: "no limit"
        ) { text, values in
            guard let rate = Double(text) else {
                throw ServerConfiguration.Invalid("--fetch-rate-limit / RC_FETCH_RATE_LIMIT: '\(text)' is not a number")
            }
            values.configuration.fetchRateLimit = rate
        },
        .seconds(
            "header-timeout", "RC_HEADER_TIMEOUT", "Seconds a connection may take to send a complete request head",
            \.headerTimeout),
        .seconds(
            "idle-timeout", "RC_IDLE_TIMEOUT", "Seconds a keep-alive connection may stay idle between requests",
            \.idleTimeout),
        .count(
            "max-streams", "RC_MAX_STREAMS", "Streams held at most, 503 beyond", \.maxStreams,
            shown: "90% of the connections the process can hold"),
        .count(
            "max-streams-per-key", "RC_MAX_STREAMS_PER_KEY", "Streams one client key holds at most, 503 beyond",
            \.maxStreamsPerKey, shown: "90% of --max-streams"),
        ServeSetting(
            flag: "cors-origins", variable: "RC_CORS_ORIGINS",
            summary: "Web origins allowed to call fetch, OFREP and the stream from a browser, comma-separated, or *",
            defaultText: "none"
        ) { text, values in
            values.configuration.corsOrigins = try CORSPolicy(parsing: text)
        },
        .text(
            "store-lookup-url", "RC_STORE_LOOKUP_URL",
            "App Store lookup URL for store sync, called as URL?id=<app id>&country=<cc>", \.storeLookupURL),
        .baseURL(
            "play-token-url", "RC_PLAY_TOKEN_URL",
            "Google's OAuth 2.0 token URL for Google Play sync (the service account's JWT audience)", \.playTokenURL),
        .baseURL(
            "play-api-url", "RC_PLAY_API_URL", "Base URL of the Google Play Developer API for Google Play sync",
            \.playAPIURL),
        ServeSetting(
            flag: "webhooks-allow-private", variable: "RC_WEBHOOKS_ALLOW_PRIVATE",
            summary: "Let webhooks reach loopback, private, link-local, multicast and unspecified addresses",
            defaultText: defaults.webhooks.allowPrivate ? "true" : "false"
        ) { text, values in
            switch text.lowercased() {
            case "true", "1": values.configuration.webhooks.allowPrivate = true
            case "false", "0": values.configuration.webhooks.allowPrivate = false
            default:
                throw ServerConfiguration.Invalid(
                    "--webhooks-allow-private / RC_WEBHOOKS_ALLOW_PRIVATE: '\(text)' is not true or false")
            }
        },
    ]

    /// Counting answers for insights, and the impact sample.
    static let insights: [ServeSetting] = [
        .onOff(
            "insights", "RC_INSIGHTS", "Count client answers for insights and keep the impact sample", \.insightsEnabled
        ),
        .seconds(
            "insights-flush-interval", "RC_INSIGHTS_FLUSH_INTERVAL",
            "Seconds between writes of this server's insights counts",
            \.insightsFlushInterval),
        .whole(
            "insights-retention-days", "RC_INSIGHTS_RETENTION_DAYS", "Days insights are kept", \.insightsRetentionDays,
            problem: "a whole number of days"),
        .whole(
            "insights-sample-size", "RC_INSIGHTS_SAMPLE_SIZE", "App instances each project's impact sample keeps",
            \.insightsSampleSize, problem: "a whole number"),
    ]

    /// Single sign-on and sessions.
    static let people: [ServeSetting] = [
        ServeSetting(
            flag: "oidc-issuer", variable: "RC_OIDC_ISSUER",
            summary: "The OpenID Connect provider's issuer URL; its discovery document is read at start",
            defaultText: nil
        ) { text, values in
            guard isHTTPURL(text) else {
                throw ServerConfiguration.Invalid("--oidc-issuer / RC_OIDC_ISSUER: '\(text)' is not an http(s) URL")
            }
            values.issuer = text
        },
        ServeSetting(
            flag: "oidc-client-id", variable: "RC_OIDC_CLIENT_ID",
            summary: "The client registered at the provider for this server", defaultText: nil
        ) { text, values in values.clientID = text },
        ServeSetting(
            flag: "oidc-groups-claim", variable: "RC_OIDC_GROUPS_CLAIM",
            summary: "The ID-token claim listing a person's groups",
            defaultText: SignInSettings(issuer: "", clientID: "", publicURL: "").groupsClaim
        ) { text, values in values.groupsClaim = text },
        ServeSetting(
            flag: "oidc-admins", variable: "RC_OIDC_ADMINS",
            summary: "Members made admins of every project at start, comma-separated: emails, group:NAME, domain:NAME",
            defaultText: nil
        ) { text, values in
            values.admins = try text.split(separator: ",").map { item in
                guard let member = SignInSettings.member(String(item)) else {
                    throw ServerConfiguration.Invalid(
                        "--oidc-admins / RC_OIDC_ADMINS: '\(item)' is not an email, group:NAME or domain:NAME")
                }
                return member
            }
        },
        .wholeSeconds(
            "session-max-age", "RC_SESSION_MAX_AGE", "Seconds a person's session lasts at most", \.sessionMaxAge),
        .wholeSeconds(
            "session-idle-timeout", "RC_SESSION_IDLE_TIMEOUT", "Seconds without a call after which a session ends",
            \.sessionIdleTimeout),
        .onOff(
            "console-token-sign-in", "RC_CONSOLE_TOKEN_SIGN_IN",
            "Whether the console offers signing in with a pasted key",
            \.consoleTokenSignIn),
    ]

    /// The setting of `flag` (the command line binds its options by it).
    public static func named(_ flag: String) -> ServeSetting {
        guard let setting = all.first(where: { $0.flag == flag }) else {
            preconditionFailure("no serve setting --\(flag)")
        }
        return setting
    }
}
