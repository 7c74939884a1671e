import Crypto
import Foundation
import Logging
import PostgresNIO

/// Applies migrations in order, once each, under an advisory lock so servers starting together take turns.
public enum Migrator {
    /// The `pg_advisory_lock` key; any constant unique to this application.
    static let lockKey: Int64 = 0x7263_5f6d_6967  // "rc_mig"

    /// Applies what is missing and returns the names applied now.
    @discardableResult
    public static func migrate(
        _ connection: PostgresConnection, migrations: [Migration], logger: Logger
    ) async throws -> [String] {
        try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
        do {
            let applied = try await migrateLocked(connection, migrations: migrations, logger: logger)
            try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
            return applied
        } catch {
            _ = try? await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
            throw error
        }
    }

    private static func migrateLocked(
        _ connection: PostgresConnection, migrations: [Migration], logger: Logger
    ) async throws -> [String] {
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
            """, logger: logger)
        var recorded: [String: String] = [:]
        let rows = try await connection.query("SELECT name, checksum FROM schema_migrations", logger: logger)
        for try await (name, checksum) in rows.decode((String, String).self) {
            recorded[name] = checksum
        }
        var appliedNow: [String] = []
        for migration in migrations {
            if let checksum = recorded[migration.name] {
                guard checksum == migration.checksum else {
                    throw MigrationError(
                        description:
                            "migration \(migration.name) was edited after it was applied (checksum \(migration.checksum.prefix(12)) ≠ recorded \(checksum.prefix(12))); restore the file and add a new migration instead"
                    )
                }
                continue
            }
            logger.info("applying migration \(migration.name)")
            try await connection.query("BEGIN", logger: logger)
            do {
                for statement in SQLScript.statements(migration.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO schema_migrations (name, checksum) VALUES (\(migration.name), \(migration.checksum))",
                    logger: logger)
                try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw MigrationError(description: "migration \(migration.name) failed: \(String(reflecting: error))")
            }
            appliedNow.append(migration.name)
        }
        return appliedNow
    }
}
