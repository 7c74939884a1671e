import Foundation
import PostgresNIO
import RemoteConfigStore

extension Database {
    /// Makes `token` a global admin key named "test key maker" that no key made, as the bootstrap token is.
    func ensureKeyMaker(token: String) async throws {
        let hash = KeySecret.hash(token)
        let prefix = KeySecret.prefix(of: token)
        try await run { client in
            _ = try await client.query(
                """
                INSERT INTO api_keys (key_id, display_name, role, project_id, key_hash, key_prefix)
                VALUES ('test-key-maker', 'test key maker', 'admin', NULL, \(hash), \(prefix))
                ON CONFLICT DO NOTHING
                """)
        }
    }
}
