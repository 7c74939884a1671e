import Foundation
import Logging
import PostgresNIO

/// Sign-ins under way, between the redirect to the provider and its callback: each state is used once, and
/// only within ten minutes of the redirect.
public struct SignInStateStore: Sendable {
    let database: Database
    /// How long a state waits for its callback.
    public static let lifetime: Duration = .seconds(600)

    /// What the callback needs of the redirect it answers.
    public struct Pending: Sendable, Equatable {
        public let nonce: String
        public let codeVerifier: String
        public let nextPath: String
    }

    public init(database: Database) {
        self.database = database
    }

    /// Keeps a new sign-in's state, and forgets those whose ten minutes are over.
    public func save(state: String, nonce: String, codeVerifier: String, nextPath: String) async throws {
        try await database.run { client in
            try await client.execute(
                """
                WITH expired AS (DELETE FROM sign_in_states WHERE created_at < now() - interval '600 seconds')
                INSERT INTO sign_in_states (state_hash, nonce, code_verifier, next_path)
                VALUES (\(KeySecret.hash(state)), \(nonce), \(codeVerifier), \(nextPath))
                """)
        }
    }

    /// Takes the sign-in `state` belongs to, once: nil when unknown, already used, or older than ten minutes.
    public func take(state: String) async throws -> Pending? {
        try await database.run { client in
            let rows = try await client.query(
                """
                DELETE FROM sign_in_states WHERE state_hash = \(KeySecret.hash(state))
                RETURNING nonce, code_verifier, next_path, created_at > now() - interval '600 seconds'
                """)
            for try await (nonce, verifier, next, fresh) in rows.decode((String, String, String, Bool).self) {
                return fresh ? Pending(nonce: nonce, codeVerifier: verifier, nextPath: next) : nil
            }
            return nil
        }
    }
}
