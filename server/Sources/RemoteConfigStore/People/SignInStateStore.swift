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
        /// The console's PKCE verifier; nil for a command line's loopback sign-in, which holds its own.
        public let codeVerifier: String?
        public let nextPath: String
        /// A command line's loopback listener; nil for the console's callback.
        public let redirectURI: String?
    }

    public init(database: Database) {
        self.database = database
    }

    /// Keeps a new sign-in's state, and forgets those whose ten minutes are over: the console's (with its PKCE
    /// verifier) or a command line's loopback one (with its redirect URI).
    public func save(
        state: String, nonce: String, codeVerifier: String?, nextPath: String, redirectURI: String? = nil
    ) async throws {
        try await database.run { client in
            try await client.execute(
                """
                WITH expired AS (DELETE FROM sign_in_states WHERE created_at < now() - interval '600 seconds')
                INSERT INTO sign_in_states (state_hash, nonce, code_verifier, next_path, redirect_uri)
                VALUES (\(KeySecret.hash(state)), \(nonce), \(codeVerifier), \(nextPath), \(redirectURI))
                """)
        }
    }

    /// Takes the sign-in `state` belongs to, once: nil when unknown, already used, or older than ten minutes.
    public func take(state: String) async throws -> Pending? {
        try await database.run { client in
            let rows = try await client.query(
                """
                DELETE FROM sign_in_states WHERE state_hash = \(KeySecret.hash(state))
                RETURNING nonce, code_verifier, next_path, redirect_uri, created_at > now() - interval '600 seconds'
                """)
            for try await (nonce, verifier, next, redirect, fresh) in rows.decode(
                (String, String?, String, String?, Bool).self)
            {
                return fresh
                    ? Pending(nonce: nonce, codeVerifier: verifier, nextPath: next, redirectURI: redirect) : nil
            }
            return nil
        }
    }
}
