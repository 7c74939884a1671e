import ArgumentParser
import Foundation
import Logging
import RemoteConfigServer
import RemoteConfigStore

/// `remote-config serve`: runs the API, with an embedded PostgreSQL when no database URL is given.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server.",
        discussion: helpText(
            ["Without --database-url it runs its own PostgreSQL under --data-dir."],
            "remote-config serve --port 8080 --database-url postgres://rc@db:5432/rc"))

    @OptionGroup var options: SharedOptions

    @OptionGroup(title: "Single sign-on") var signIn: SignInOptions

    @OptionGroup(title: "Secrets at rest") var secretsKey: SecretsKeyOptions

    @Option(help: "Address to listen on (RC_HOST; default 127.0.0.1).")
    var host: String?

    @Option(help: "Port to listen on, 0 for any free port (RC_PORT; default 8080).")
    var port: String?

    @Option(
        help: "Folder of the embedded PostgreSQL and the generated admin token (RC_DATA_DIR; default ./.remote-config)."
    )
    var dataDir: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (RC_LOG_LEVEL; default info).")
    var logLevel: String?

    @Option(help: "Folder with initdb, pg_ctl and postgres for the embedded database (RC_POSTGRES_BIN_DIR).")
    var postgresBinDir: String?

    @Option(help: "Fetches per second allowed per client key, 429 beyond it (RC_FETCH_RATE_LIMIT; default: no limit).")
    var fetchRateLimit: String?

    @Option(help: "Seconds a connection may take to send a complete request head (RC_HEADER_TIMEOUT; default 30).")
    var headerTimeout: String?

    @Option(help: "Seconds a keep-alive connection may stay idle between requests (RC_IDLE_TIMEOUT; default 75).")
    var idleTimeout: String?

    @Option(
        help: "Streams held at most, 503 beyond (RC_MAX_STREAMS; default 90% of the connections the process can hold).")
    var maxStreams: String?

    @Option(
        help: "Streams one client key holds at most, 503 beyond (RC_MAX_STREAMS_PER_KEY; default 90% of --max-streams)."
    )
    var maxStreamsPerKey: String?

    @Option(
        help:
            "Web origins allowed to call fetch, OFREP and the stream from a browser, comma-separated, or * (RC_CORS_ORIGINS; default none)."
    )
    var corsOrigins: String?

    @Option(
        help:
            "App Store lookup URL for store sync, called as URL?id=<app id>&country=<cc> (RC_STORE_LOOKUP_URL; default \(ServerConfiguration.appleLookupURL))."
    )
    var storeLookupUrl: String?

    @Option(help: "Count client answers for insights and keep the impact sample: on or off (RC_INSIGHTS; default on).")
    var insights: String?

    @Option(help: "Seconds between writes of this server's insights counts (RC_INSIGHTS_FLUSH_INTERVAL; default 60).")
    var insightsFlushInterval: String?

    @Option(help: "Days insights are kept (RC_INSIGHTS_RETENTION_DAYS; default 90).")
    var insightsRetentionDays: String?

    @Option(help: "App instances each project's impact sample keeps (RC_INSIGHTS_SAMPLE_SIZE; default 10000).")
    var insightsSampleSize: String?

    @Flag(
        help:
            "Let webhooks reach loopback, private, link-local, multicast and unspecified addresses (RC_WEBHOOKS_ALLOW_PRIVATE=true)."
    )
    var webhooksAllowPrivate = false

    @Option(
        help:
            "The address people reach this server at: console links in Slack messages, the sign-in redirect URI (RC_PUBLIC_URL)."
    )
    var publicUrl: String?

    @Option(help: "Event loops serving connections (RC_EVENT_LOOPS; default one per core).")
    var eventLoops: String?

    func run() async throws {
        let configuration: ServerConfiguration
        do {
            configuration = try makeConfiguration()
            try configuration.validate()
        } catch {
            throw fail("\(error)")
        }
        let (sealer, _) = try secretsKey.resolve(dataDirectory: configuration.dataDirectory, create: true)
        // First: NIO's shared event loops start with their count when anything first uses them.
        if let count = configuration.eventLoops { EventLoopCount.apply(count) }
        LoggingSystem.bootstrap { label in
            var handler = EscapingLogHandler(StreamLogHandler.standardOutput(label: label))
            handler.logLevel = configuration.logLevel
            return handler
        }
        let logger = Logger(label: "remote-config")
        let openFiles = ConnectionCapacity.raiseOpenFilesLimit()
        let connections = ConnectionCapacity.connections(openFiles: openFiles)
        let streams = configuration.maxStreams ?? ConnectionCapacity.defaultMaxStreams(openFiles: openFiles)
        let perKey = configuration.maxStreamsPerKey ?? StreamHub.defaultMaxStreamsPerKey(maxStreams: streams)
        logger.info(
            "open-files limit \(openFiles): room for about \(connections) connections, at most \(streams) streams (\(perKey) per client key)"
        )

        var embedded: EmbeddedPostgres?
        let databaseURL: String
        if let given = configuration.databaseURL {
            databaseURL = given
        } else {
            do {
                let binaries = try PostgresBinaries.locate(override: configuration.postgresBinDirectory)
                let cluster = try EmbeddedPostgres(
                    dataDirectory: configuration.dataDirectory, binaries: binaries, logger: logger)
                embedded = cluster
                databaseURL = try cluster.start()
                try await cluster.createDatabaseIfMissing(logger: logger)
                try Data((databaseURL + "\n").utf8).write(
                    to: URL(fileURLWithPath: cluster.dataDirectory).appendingPathComponent("database-url"))
                logger.info("embedded PostgreSQL running", metadata: ["url": "\(databaseURL)"])
            } catch {
                embedded?.stopQuietly(logger: logger)
                throw fail("embedded PostgreSQL (--data-dir / RC_DATA_DIR): \(error)")
            }
        }

        do {
            let url = try prepareDatabase(databaseURL)
            try await migrateOrFail(url, logger: logger)
            let secrets = try await prepareSecretsOrFail(url, sealer: sealer, logger: logger)
            var provider: OIDCProvider?
            if let settings = configuration.signIn {
                do {
                    provider = try await OIDCProvider.discover(settings, logger: logger)
                    logger.info(
                        "single sign-on with \(settings.issuer)", metadata: ["redirect": "\(settings.redirectURI)"])
                } catch {
                    throw fail("--oidc-issuer / RC_OIDC_ISSUER: \(error)")
                }
            }
            let database = Database(url: url, logger: logger)
            let app = buildApplication(
                configuration: configuration, database: database, secrets: secrets, logger: logger,
                provider: provider
            ) { port in
                Console.line("remote-config listening on http://\(configuration.host):\(port)")
            }
            try await runUntilSignalled(app, logger: logger)
        } catch let exit as ExitCode {
            embedded?.stopQuietly(logger: logger)
            throw exit
        } catch {
            embedded?.stopQuietly(logger: logger)
            throw fail("\(error)")
        }
        if let embedded {
            try? FileManager.default.removeItem(
                at: URL(fileURLWithPath: embedded.dataDirectory).appendingPathComponent("database-url"))
            embedded.stopQuietly(logger: logger)
        }
        logger.info("stopped")
    }

    private func makeConfiguration() throws -> ServerConfiguration {
        let environment = ProcessInfo.processInfo.environment
        var configuration = ServerConfiguration()
        if let host = host ?? environment["RC_HOST"] { configuration.host = host }
        if let text = port ?? environment["RC_PORT"] {
            guard let value = Int(text) else {
                throw ServerConfiguration.Invalid("--port / RC_PORT: '\(text)' is not a port number")
            }
            configuration.port = value
        }
        configuration.databaseURL = options.resolvedDatabaseURL
        if let dataDir = dataDir ?? environment["RC_DATA_DIR"] { configuration.dataDirectory = dataDir }
        if let text = logLevel ?? environment["RC_LOG_LEVEL"] {
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                throw ServerConfiguration.Invalid(
                    "--log-level / RC_LOG_LEVEL: '\(text)' is not one of trace, debug, info, notice, warning, error, critical"
                )
            }
            configuration.logLevel = level
        }
        configuration.adminToken = environment["RC_ADMIN_TOKEN"]
        configuration.postgresBinDirectory = postgresBinDir ?? environment["RC_POSTGRES_BIN_DIR"]
        if let text = fetchRateLimit ?? environment["RC_FETCH_RATE_LIMIT"], !text.isEmpty {
            guard let rate = Double(text) else {
                throw ServerConfiguration.Invalid("--fetch-rate-limit / RC_FETCH_RATE_LIMIT: '\(text)' is not a number")
            }
            configuration.fetchRateLimit = rate
        }
        if let text = headerTimeout ?? environment["RC_HEADER_TIMEOUT"], !text.isEmpty {
            configuration.headerTimeout = try seconds(text, setting: "--header-timeout / RC_HEADER_TIMEOUT")
        }
        if let text = idleTimeout ?? environment["RC_IDLE_TIMEOUT"], !text.isEmpty {
            configuration.idleTimeout = try seconds(text, setting: "--idle-timeout / RC_IDLE_TIMEOUT")
        }
        if let text = maxStreams ?? environment["RC_MAX_STREAMS"], !text.isEmpty {
            guard let count = Int(text), count > 0 else {
                throw ServerConfiguration.Invalid(
                    "--max-streams / RC_MAX_STREAMS: '\(text)' is not a positive whole number")
            }
            configuration.maxStreams = count
        }
        if let text = maxStreamsPerKey ?? environment["RC_MAX_STREAMS_PER_KEY"], !text.isEmpty {
            guard let count = Int(text), count > 0 else {
                throw ServerConfiguration.Invalid(
                    "--max-streams-per-key / RC_MAX_STREAMS_PER_KEY: '\(text)' is not a positive whole number")
            }
            configuration.maxStreamsPerKey = count
        }
        if let text = eventLoops ?? environment["RC_EVENT_LOOPS"], !text.isEmpty {
            guard let count = Int(text), (1...EventLoopCount.maximum).contains(count) else {
                throw ServerConfiguration.Invalid(
                    "--event-loops / RC_EVENT_LOOPS: '\(text)' is not a whole number from 1 to \(EventLoopCount.maximum)"
                )
            }
            configuration.eventLoops = count
        }
        if let text = corsOrigins ?? environment["RC_CORS_ORIGINS"], !text.isEmpty {
            configuration.corsOrigins = try CORSPolicy(parsing: text)
        }
        if let text = storeLookupUrl ?? environment["RC_STORE_LOOKUP_URL"], !text.isEmpty {
            configuration.storeLookupURL = text
        }
        try readInsights(into: &configuration, environment)
        let allowPrivate = environment["RC_WEBHOOKS_ALLOW_PRIVATE"]?.lowercased()
        if let allowPrivate, !["true", "false", "1", "0", ""].contains(allowPrivate) {
            throw ServerConfiguration.Invalid("RC_WEBHOOKS_ALLOW_PRIVATE: '\(allowPrivate)' is not true or false")
        }
        configuration.webhooks.allowPrivate = webhooksAllowPrivate || allowPrivate == "true" || allowPrivate == "1"
        if let text = publicUrl ?? environment["RC_PUBLIC_URL"], !text.isEmpty {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host != nil
            else {
                throw ServerConfiguration.Invalid("--public-url / RC_PUBLIC_URL: '\(text)' is not an http(s) URL")
            }
            configuration.webhooks.publicURL = text
        }
        try signIn.apply(to: &configuration, publicURL: configuration.webhooks.publicURL, environment)
        return configuration
    }
}

extension Serve {
    fileprivate func readInsights(into configuration: inout ServerConfiguration, _ environment: [String: String])
        throws
    {
        if let text = insights ?? environment["RC_INSIGHTS"], !text.isEmpty {
            switch text.lowercased() {
            case "on", "true", "1": configuration.insightsEnabled = true
            case "off", "false", "0": configuration.insightsEnabled = false
            default: throw ServerConfiguration.Invalid("--insights / RC_INSIGHTS: '\(text)' is not on or off")
            }
        }
        if let text = insightsFlushInterval ?? environment["RC_INSIGHTS_FLUSH_INTERVAL"], !text.isEmpty {
            configuration.insightsFlushInterval = try seconds(
                text, setting: "--insights-flush-interval / RC_INSIGHTS_FLUSH_INTERVAL")
        }
        if let text = insightsRetentionDays ?? environment["RC_INSIGHTS_RETENTION_DAYS"], !text.isEmpty {
            guard let days = Int(text) else {
                throw ServerConfiguration.Invalid(
                    "--insights-retention-days / RC_INSIGHTS_RETENTION_DAYS: '\(text)' is not a whole number of days")
            }
            configuration.insightsRetentionDays = days
        }
        if let text = insightsSampleSize ?? environment["RC_INSIGHTS_SAMPLE_SIZE"], !text.isEmpty {
            guard let size = Int(text) else {
                throw ServerConfiguration.Invalid(
                    "--insights-sample-size / RC_INSIGHTS_SAMPLE_SIZE: '\(text)' is not a whole number")
            }
            configuration.insightsSampleSize = size
        }
    }
}

/// A positive number of seconds (decimals allowed), or one line naming the setting.
private func seconds(_ text: String, setting: String) throws -> Duration {
    guard let value = Double(text), value > 0, value <= 86_400 else {
        throw ServerConfiguration.Invalid("\(setting): '\(text)' is not a number of seconds between 0 and 86400")
    }
    return .milliseconds(Int64((value * 1000).rounded()))
}

/// Parses the URL or fails with one line naming the setting.
func prepareDatabase(_ text: String) throws -> DatabaseURL {
    do {
        return try DatabaseURL(text)
    } catch {
        throw fail("--database-url / RC_DATABASE_URL: \(error)")
    }
}

/// Connects once and applies migrations, failing with one clear line when the database is unreachable.
func migrateOrFail(_ url: DatabaseURL, logger: Logger) async throws {
    let connection: PostgresConnectionHandle
    do {
        connection = try await PostgresConnectionHandle.open(url, logger: logger)
    } catch {
        throw fail("--database-url / RC_DATABASE_URL: cannot reach \(url): \(error)")
    }
    do {
        let applied = try await connection.migrate(logger: logger)
        if !applied.isEmpty { logger.info("applied migrations: \(applied.joined(separator: ", "))") }
        await connection.close()
    } catch {
        await connection.close()
        throw fail("migrations: \(error)")
    }
}

/// Checks the secrets key against the database and seals what is left in plain text, or fails with one line: a
/// server given another key than its replicas' must not start.
func prepareSecretsOrFail(_ url: DatabaseURL, sealer: SecretSealer, logger: Logger) async throws -> ServerSecrets {
    do {
        return try await ServerSecrets.prepare(url, sealer: sealer, logger: logger)
    } catch let mismatch as SecretsKeyMismatch {
        throw fail("\(SecretsKeyOptions.setting): \(mismatch)")
    } catch {
        throw fail("secrets at rest: \(error)")
    }
}

extension EmbeddedPostgres {
    func stopQuietly(logger: Logger) {
        do {
            try stop()
            logger.info("embedded PostgreSQL stopped")
        } catch {
            logger.error("could not stop the embedded PostgreSQL: \(error)")
        }
    }
}
