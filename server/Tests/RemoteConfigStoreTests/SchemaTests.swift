import Logging
import PostgresNIO
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// Invariants the database itself enforces.
@Suite struct SchemaTests {
    let logger = Logger(label: "test")

    @Test func publishedVersionsCannotBeRewritten() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        try await PostgresConnectionHandle.with(url, logger: logger) { handle in
            let connection = handle.connection
            try await connection.query("INSERT INTO projects (project_id) VALUES ('shop-app')", logger: logger)
            try await connection.query(
                """
                INSERT INTO template_versions (project_id, version_number, template, update_type)
                VALUES ('shop-app', 1, '{}', 'INCREMENTAL_UPDATE')
                """, logger: logger)
            for statement in [
                "UPDATE template_versions SET description = 'changed'",
                "DELETE FROM template_versions",
                "TRUNCATE template_versions",
            ] {
                await #expect(throws: PSQLError.self, "\(statement)") {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            }
            await #expect(throws: PSQLError.self, "duplicate version number") {
                try await connection.query(
                    """
                    INSERT INTO template_versions (project_id, version_number, template, update_type)
                    VALUES ('shop-app', 1, '{}', 'INCREMENTAL_UPDATE')
                    """, logger: logger)
            }
        }
    }
}
