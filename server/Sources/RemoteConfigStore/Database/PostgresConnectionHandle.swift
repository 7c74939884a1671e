import Logging
import PostgresNIO

/// One standalone connection for start-up work (reachability check, migrations, creating databases).
public struct PostgresConnectionHandle: Sendable {
    public let connection: PostgresConnection

    /// Connects, or fails with `StoreError.unavailable` within `timeout`.
    public static func open(_ url: DatabaseURL, logger: Logger, timeout: Duration = .seconds(10)) async throws -> Self {
        Self(connection: try await connectOnce(url, logger: logger, timeout: timeout))
    }

    /// Opens a connection, runs `body` with it and closes it, whatever happens.
    public static func with<T: Sendable>(
        _ url: DatabaseURL, logger: Logger, _ body: (PostgresConnectionHandle) async throws -> T
    ) async throws -> T {
        let handle = try await open(url, logger: logger)
        do {
            let result = try await body(handle)
            await handle.close()
            return result
        } catch {
            await handle.close()
            throw error
        }
    }

    /// Applies the bundled migrations; returns the names applied now.
    public func migrate(logger: Logger) async throws -> [String] {
        try await Migrator.migrate(connection, migrations: try Migration.bundled(), logger: logger)
    }

    /// Creates `name` unless it exists.
    public func createDatabaseIfMissing(_ name: String, logger: Logger) async throws {
        let rows = try await connection.query("SELECT 1 FROM pg_database WHERE datname = \(name)", logger: logger)
        for try await _ in rows { return }
        do {
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \"\(name)\""), logger: logger)
        } catch  where SQLState(of: error) == .duplicateDatabase {
            // Created meanwhile by another process: fine.
        }
    }

    public func close() async {
        try? await connection.close()
    }
}

extension EmbeddedPostgres {
    /// Creates the server's database inside the cluster on first start.
    public func createDatabaseIfMissing(logger: Logger) async throws {
        let url = try DatabaseURL(
            DatabaseURL.unixSocket(directory: socketDirectory, username: Self.superuser, database: "postgres"))
        try await PostgresConnectionHandle.with(url, logger: logger) { handle in
            try await handle.createDatabaseIfMissing(Self.databaseName, logger: logger)
        }
    }
}
