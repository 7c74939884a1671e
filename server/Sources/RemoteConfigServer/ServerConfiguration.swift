import Foundation
import Logging

/// Everything `serve` needs, built once from flags and `RC_*` variables and validated before start-up.
public struct ServerConfiguration: Sendable {
    /// The `Server` header of every answer, the router's and the fronts'.
    static let serverName = "remote-config"
    /// The version the MCP server gives in `initialize`: the API's.
    public static let mcpServerVersion = "1.0.0"

    public var host: String = "127.0.0.1"
    public var port: Int = 8080
    /// nil: start an embedded PostgreSQL under `dataDirectory`.
    public var databaseURL: String?
    public var dataDirectory: String = "./.remote-config"
    public var logLevel: Logger.Level = .info
    /// When set, a global admin key with exactly this token exists.
    public var adminToken: String?
    /// Where to look for the PostgreSQL server binaries; nil searches the usual places.
    public var postgresBinDirectory: String?
    /// How often each server re-reads the latest versions and keys, a safety net behind NOTIFY.
    public var cacheCheckInterval: Duration = .seconds(5)
    /// The longest each server's scheduler sleeps without asking the database for scheduled change requests
    /// (it sleeps until the next one is due, and is woken by NOTIFY when one is scheduled on any server), and
    /// its minimum-version policy checks for policies that are due.
    public var schedulePollInterval: Duration = .seconds(2)
    /// How often idle realtime streams get a comment line (API.md: at least every 30 seconds).
    public var streamKeepAliveInterval: Duration = .seconds(15)
    /// Fetches per second allowed per client key (bursts of the same size); nil: no limit.
    public var fetchRateLimit: Double?
    /// A connection that has not sent a complete request head within this is closed.
    public var headerTimeout: Duration = .seconds(30)
    /// A keep-alive connection with no request in flight is closed after this (open streams are not idle).
    public var idleTimeout: Duration = .seconds(75)
    /// Streams this server holds at most; a stream request beyond them answers 503 with `Retry-After`.
    /// nil: 90% of the connections the process can hold (`ConnectionCapacity`).
    public var maxStreams: Int?
    /// Streams one client key holds at most on this server, 503 with `Retry-After` beyond; nil: 90% of
    /// `maxStreams`.
    public var maxStreamsPerKey: Int?
    /// Event loops serving connections; nil: one per core (NIO's shared group).
    public var eventLoops: Int?
    /// Web origins allowed to call the client routes from a browser (`--cors-origins`); none by default.
    public var corsOrigins: CORSPolicy = .none
    /// Apple's lookup, the default of `--store-lookup-url`.
    public static let appleLookupURL = "https://itunes.apple.com/lookup"
    /// The App Store lookup that store sync asks (`URL?id=<appStoreId>&country=<country>`).
    public var storeLookupURL: String = Self.appleLookupURL
    /// A store lookup that has not answered within this has failed.
    public var storeLookupTimeout: Duration = .seconds(10)
    /// Google's OAuth 2.0 token endpoint, the default of `--play-token-url`.
    public static let googleTokenURL = "https://oauth2.googleapis.com/token"
    /// The Google Play Developer API, the default of `--play-api-url`.
    public static let googlePlayAPIURL = "https://androidpublisher.googleapis.com"
    /// Where Google Play sync exchanges a service account's JWT for an access token (the key's `token_uri` is not
    /// followed); also the JWT's `aud`.
    public var playTokenURL: String = Self.googleTokenURL
    /// The base of the Google Play Developer API (`{api}/androidpublisher/v3/…`).
    public var playAPIURL: String = Self.googlePlayAPIURL
    /// How often each server looks for store links that are due.
    public var storeSyncPollInterval: Duration = .seconds(5)
    /// Webhook deliveries: private destinations, the console's public address, the retry schedule.
    public var webhooks = WebhookSettings()

    /// Counting client answers for insights, and the impact sample (`--insights on|off`).
    public var insightsEnabled = true
    /// How often each server adds its counts to the database.
    public var insightsFlushInterval: Duration = .seconds(60)
    /// Days insights rows and samples are kept.
    public var insightsRetentionDays = 90
    /// Instances each project's impact sample keeps.
    public var insightsSampleSize = 10_000

    /// Single sign-on with an OpenID Connect provider; nil when it is not set up.
    public var signIn: SignInSettings?
    /// A person's session ends this long after sign-in (`--session-max-age`).
    public var sessionMaxAge: Duration = .seconds(43_200)
    /// A person's session ends after this long without a call (`--session-idle-timeout`).
    public var sessionIdleTimeout: Duration = .seconds(7_200)
    /// Whether the console offers signing in with a pasted key (`--console-token-sign-in`).
    public var consoleTokenSignIn = true

    public init() {}

    /// A setting that cannot be used: names the flag and variable, and why.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// Whether `text` is an `http` or `https` URL with a host and neither query nor fragment (the Google Play
    /// settings, to which paths and a form are added).
    static func isBaseURL(_ text: String) -> Bool {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased()),
            url.host?.isEmpty == false
        else { return false }
        return url.query == nil && url.fragment == nil
    }

    /// Checks what can be checked without side effects beyond the data dir.
    public func validate() throws {
        guard (0...65535).contains(port) else {
            throw Invalid("--port / RC_PORT: \(port) is out of range (0-65535)")
        }
        guard !host.isEmpty else { throw Invalid("--host / RC_HOST: empty") }
        if let fetchRateLimit, !(fetchRateLimit > 0 && fetchRateLimit.isFinite) {
            throw Invalid("--fetch-rate-limit / RC_FETCH_RATE_LIMIT: \(fetchRateLimit) is not a positive number")
        }
        guard headerTimeout > .zero else { throw Invalid("--header-timeout / RC_HEADER_TIMEOUT: must be positive") }
        guard idleTimeout > .zero else { throw Invalid("--idle-timeout / RC_IDLE_TIMEOUT: must be positive") }
        if let maxStreams, maxStreams < 1 {
            throw Invalid("--max-streams / RC_MAX_STREAMS: \(maxStreams) is not a positive number of streams")
        }
        if let maxStreamsPerKey, maxStreamsPerKey < 1 {
            throw Invalid(
                "--max-streams-per-key / RC_MAX_STREAMS_PER_KEY: \(maxStreamsPerKey) is not a positive number of streams"
            )
        }
        guard let lookup = URL(string: storeLookupURL), ["http", "https"].contains(lookup.scheme?.lowercased()),
            lookup.host?.isEmpty == false
        else {
            throw Invalid("--store-lookup-url / RC_STORE_LOOKUP_URL: '\(storeLookupURL)' is not an http(s) URL")
        }
        for (setting, value) in [
            ("--play-token-url / RC_PLAY_TOKEN_URL", playTokenURL), ("--play-api-url / RC_PLAY_API_URL", playAPIURL),
        ] where !Self.isBaseURL(value) {
            throw Invalid("\(setting): '\(value)' is not an http(s) URL with a host and without a query")
        }
        guard storeLookupTimeout > .zero, storeSyncPollInterval > .zero else {
            throw Invalid("store sync: the lookup timeout and the poll interval must be positive")
        }
        guard insightsFlushInterval > .zero else {
            throw Invalid("--insights-flush-interval / RC_INSIGHTS_FLUSH_INTERVAL: must be positive")
        }
        guard (1...3650).contains(insightsRetentionDays) else {
            throw Invalid(
                "--insights-retention-days / RC_INSIGHTS_RETENTION_DAYS: \(insightsRetentionDays) is not 1-3650")
        }
        guard (0...1_000_000).contains(insightsSampleSize) else {
            throw Invalid("--insights-sample-size / RC_INSIGHTS_SAMPLE_SIZE: \(insightsSampleSize) is not 0-1000000")
        }
        guard sessionMaxAge > .zero, sessionIdleTimeout > .zero else {
            throw Invalid("--session-max-age / --session-idle-timeout: must be positive")
        }
        try Self.checkWritable(dataDirectory, needed: databaseURL == nil)
    }

    /// The data dir must be writable when the embedded cluster or the generated admin token lives there.
    static func checkWritable(_ directory: String, needed: Bool) throws {
        let fileManager = FileManager.default
        do {
            try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let probe = directory + "/.write-test-\(getpid())"
            guard fileManager.createFile(atPath: probe, contents: Data()) else {
                throw Invalid("--data-dir / RC_DATA_DIR: \(directory) is not writable")
            }
            try fileManager.removeItem(atPath: probe)
        } catch let error as Invalid {
            if needed { throw error }
        } catch {
            if needed {
                throw Invalid("--data-dir / RC_DATA_DIR: \(directory) is not writable (\(error.localizedDescription))")
            }
        }
    }
}
