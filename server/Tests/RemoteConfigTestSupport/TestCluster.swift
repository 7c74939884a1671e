import Foundation
import Logging
import PostgresNIO
import RemoteConfigStore

/// The throwaway PostgreSQL cluster of one test process, and a fresh migrated database per test.
///
/// One cluster per process (about 0.7 s to start), one database per test cloned from a migrated
/// template (tens of milliseconds), so tests stay independent and fast. The cluster is stopped when
/// the process exits.
public actor TestCluster {
    /// The cluster of this process.
    public static let shared = TestCluster()

    // One start, shared by every caller: the actor is re-entrant across the awaits of starting.
    private var starting: Task<EmbeddedPostgres, any Error>?
    private var counter = 0
    public static let logger: Logger = {
        var logger = Logger(label: "test-cluster")
        logger.logLevel = .warning
        return logger
    }()

    /// A new, migrated database of its own for one test.
    public func makeDatabase() async throws -> DatabaseURL {
        let cluster = try await startIfNeeded()
        counter += 1
        let name = "t_\(counter)_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try await PostgresConnectionHandle.with(try Self.url(cluster, "postgres"), logger: Self.logger) { admin in
            try await admin.connection.query(
                PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) TEMPLATE rc_template"), logger: Self.logger)
        }
        return try Self.url(cluster, name)
    }

    /// An empty database (no migrations), for migration tests.
    public func makeEmptyDatabase() async throws -> DatabaseURL {
        let cluster = try await startIfNeeded()
        counter += 1
        let name = "e_\(counter)_\(UUID().uuidString.prefix(8).lowercased())"
        try await PostgresConnectionHandle.with(try Self.url(cluster, "postgres"), logger: Self.logger) { admin in
            try await admin.createDatabaseIfMissing(name, logger: Self.logger)
        }
        return try Self.url(cluster, name)
    }

    /// The cluster itself (tests that stop and start it).
    public func embedded() async throws -> EmbeddedPostgres {
        try await startIfNeeded()
    }

    static func url(_ cluster: EmbeddedPostgres, _ database: String) throws -> DatabaseURL {
        try DatabaseURL(
            DatabaseURL.unixSocket(
                directory: cluster.socketDirectory, username: EmbeddedPostgres.superuser, database: database))
    }

    private func startIfNeeded() async throws -> EmbeddedPostgres {
        if let starting { return try await starting.value }
        let task = Task { try await Self.start() }
        starting = task
        return try await task.value
    }

    private static func start() async throws -> EmbeddedPostgres {
        removeAbandonedClusters()
        let directory = NSTemporaryDirectory() + "rc-test-\(getpid())"
        let cluster = try EmbeddedPostgres(
            dataDirectory: directory, binaries: try PostgresBinaries.locate(), durable: false, logger: logger)
        _ = try cluster.start()
        CleanUp.register(directory: directory)
        try await PostgresConnectionHandle.with(try url(cluster, "postgres"), logger: logger) { admin in
            try await admin.createDatabaseIfMissing("rc_template", logger: logger)
        }
        _ = try await PostgresConnectionHandle.with(try url(cluster, "rc_template"), logger: logger) { template in
            try await template.migrate(logger: logger)
        }
        return cluster
    }

    /// Clusters of test processes that were killed before they could clean up.
    private static func removeAbandonedClusters() {
        let temporary = NSTemporaryDirectory()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        for name in names where name.hasPrefix("rc-test-") {
            guard let pid = Int32(name.dropFirst("rc-test-".count)), kill(pid, 0) != 0 else { continue }
            CleanUp.stopAndRemove(temporary + name)
        }
    }
}

/// Stops the test cluster and removes its folder when the process exits.
enum CleanUp {
    // Written once before any exit handler can run, read only by that handler.
    nonisolated(unsafe) static var directory: String?

    static func register(directory: String) {
        Self.directory = directory
        atexit {
            if let directory = CleanUp.directory { CleanUp.stopAndRemove(directory) }
        }
    }

    static func stopAndRemove(_ directory: String) {
        if let binaries = try? PostgresBinaries.locate(),
            let cluster = try? EmbeddedPostgres(
                dataDirectory: directory, binaries: binaries, durable: false, logger: Logger(label: "cleanup"))
        {
            cluster.stopImmediately()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A cluster of one test's own, for tests that stop and restart PostgreSQL.
public struct PrivateCluster: Sendable {
    public let embedded: EmbeddedPostgres
    public let url: DatabaseURL

    /// Starts a new cluster with a migrated `remote_config` database.
    public static func start() async throws -> PrivateCluster {
        let directory = NSTemporaryDirectory() + "rc-test-\(getpid())-\(UUID().uuidString.prefix(6))"
        let embedded = try EmbeddedPostgres(
            dataDirectory: directory, binaries: try PostgresBinaries.locate(), durable: false,
            logger: TestCluster.logger)
        let text = try embedded.start()
        try await embedded.createDatabaseIfMissing(logger: TestCluster.logger)
        let url = try DatabaseURL(text)
        _ = try await PostgresConnectionHandle.with(url, logger: TestCluster.logger) { handle in
            try await handle.migrate(logger: TestCluster.logger)
        }
        return PrivateCluster(embedded: embedded, url: url)
    }

    /// Stops the cluster and removes its files.
    public func destroy() {
        embedded.stopImmediately()
        try? FileManager.default.removeItem(atPath: embedded.dataDirectory)
    }
}
