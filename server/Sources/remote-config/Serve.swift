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

    @Option(help: help("host")) var host: String?
    @Option(help: help("port")) var port: String?
    @Option(help: help("data-dir")) var dataDir: String?
    @Option(help: help("log-level")) var logLevel: String?
    @Option(help: help("postgres-bin-dir")) var postgresBinDir: String?
    @Option(help: help("fetch-rate-limit")) var fetchRateLimit: String?
    @Option(help: help("header-timeout")) var headerTimeout: String?
    @Option(help: help("idle-timeout")) var idleTimeout: String?
    @Option(help: help("max-streams")) var maxStreams: String?
    @Option(help: help("max-streams-per-key")) var maxStreamsPerKey: String?
    @Option(help: help("cors-origins")) var corsOrigins: String?
    @Option(help: help("store-lookup-url")) var storeLookupUrl: String?
    @Option(help: help("play-token-url")) var playTokenUrl: String?
    @Option(help: help("play-api-url")) var playApiUrl: String?
    @Option(help: help("insights")) var insights: String?
    @Option(help: help("insights-flush-interval")) var insightsFlushInterval: String?
    @Option(help: help("insights-retention-days")) var insightsRetentionDays: String?
    @Option(help: help("insights-sample-size")) var insightsSampleSize: String?

    @Flag(help: help("webhooks-allow-private")) var webhooksAllowPrivate = false

    @Option(help: help("public-url")) var publicUrl: String?

    @Option(help: help("event-loops")) var eventLoops: String?

    /// Each setting given as a flag, by its flag's name (`ServeSetting.configuration` reads the rest from the
    /// environment).
    private var given: [String: String] {
        var given: [String: String?] = [
            "host": host,
            "port": port,
            "data-dir": dataDir,
            "log-level": logLevel,
            "postgres-bin-dir": postgresBinDir,
            "fetch-rate-limit": fetchRateLimit,
            "header-timeout": headerTimeout,
            "idle-timeout": idleTimeout,
            "max-streams": maxStreams,
            "max-streams-per-key": maxStreamsPerKey,
            "cors-origins": corsOrigins,
            "store-lookup-url": storeLookupUrl,
            "play-token-url": playTokenUrl,
            "play-api-url": playApiUrl,
            "insights": insights,
            "insights-flush-interval": insightsFlushInterval,
            "insights-retention-days": insightsRetentionDays,
            "insights-sample-size": insightsSampleSize,
            "public-url": publicUrl,
            "event-loops": eventLoops,
            "webhooks-allow-private": webhooksAllowPrivate ? "true" : nil,
        ]
        given.merge(signIn.given) { flag, _ in flag }
        return given.compactMapValues { $0 }
    }

    func run() async throws {
        let configuration: ServerConfiguration
        do {
            configuration = try makeConfiguration()
            try configuration.validate()
        } catch {
            throw fail("\(error)")
        }
        let (sealer, _) = try secretsKey.resolve(dataDirectory: configuration.dataDirectory, create: true)
        // First: the allocator's heaps and NIO's shared event loops are set before any of their threads starts.
        Allocator.configureAllocator()
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
        let values = try ServeSetting.configuration(given: given, environment: environment)
        var configuration = values.configuration
        configuration.databaseURL = options.resolvedDatabaseURL
        configuration.adminToken = environment["RC_ADMIN_TOKEN"]
        configuration.signIn = try values.signInSettings(clientSecret: signIn.clientSecret(environment))
        return configuration
    }
}

/// The help line of the setting `flag`, from `ServeSetting`'s one list.
func help(_ flag: String) -> ArgumentHelp {
    ArgumentHelp(ServeSetting.named(flag).help)
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
