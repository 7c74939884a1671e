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

/// The change request tables refuse what cannot happen.
@Suite struct ChangeRequestSchemaTests {
    let logger = Logger(label: "test")

    @Test func impossibleChangeRequestStatesAreRefused() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        try await PostgresConnectionHandle.with(url, logger: logger) { handle in
            let connection = handle.connection
            for statement in [
                "INSERT INTO projects (project_id) VALUES ('shop-app')",
                """
                INSERT INTO api_keys (key_id, role, key_hash, key_prefix)
                VALUES ('author', 'editor', sha256('a'), 'rc_editor_a'), ('other', 'editor', sha256('b'), 'rc_editor_b')
                """,
                """
                INSERT INTO change_requests (request_id, project_id, author_key, author_name, base_version, template)
                VALUES (1, 'shop-app', 'author', 'Author', 0, '{}')
                """,
                """
                INSERT INTO change_request_approvals (request_id, key_id, display_name, identity)
                VALUES (1, 'other', 'Other', 'key:other')
                """,
            ] {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            for (statement, why) in [
                ("UPDATE change_requests SET state = 'PUBLISHED'", "published without its version"),
                ("UPDATE change_requests SET published_version = 1", "a version while not published"),
                (
                    "UPDATE change_requests SET state = 'PUBLISHED', published_version = 7",
                    "a version that does not exist"
                ),
                ("UPDATE change_requests SET state = 'SCHEDULED'", "scheduled without a time"),
                ("UPDATE change_requests SET state = 'REJECTED'", "rejected by nobody"),
                ("UPDATE change_requests SET state = 'MERGED'", "an unknown state"),
                (
                    """
                    INSERT INTO change_request_approvals (request_id, key_id, display_name, identity)
                    VALUES (1, 'other', 'Again', 'key:other')
                    """,
                    "a second approval by one key"
                ),
                (
                    """
                    INSERT INTO change_request_approvals (request_id, key_id, display_name, identity)
                    VALUES (1, 'author', 'Me', 'key:author')
                    """,
                    "the author's approval"
                ),
                (
                    """
                    INSERT INTO change_request_approvals (request_id, key_id, display_name, identity)
                    VALUES (2, 'other', 'X', 'key:other')
                    """,
                    "an approval of no request"
                ),
                ("UPDATE projects SET approvals_required = 0", "fewer than one approval required"),
            ] {
                await #expect(throws: PSQLError.self, "\(why)") {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            }
        }
    }
}
