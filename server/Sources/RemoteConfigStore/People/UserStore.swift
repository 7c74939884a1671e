import Foundation
import Logging
import PostgresNIO

/// People who signed in, in PostgreSQL.
public struct UserStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Records a sign-in: the person is created on their first, and what the provider says of them now
    /// replaces what it said before (name, email, groups: a group they left no longer counts).
    public func signedIn(_ person: SignedInPerson) async throws -> User {
        try await database.run { client in
            let rows = try await client.query(
                """
                INSERT INTO users (user_id, issuer, subject, email, email_verified, display_name, groups)
                VALUES (\(KeyStore.newID()), \(person.issuer), \(person.subject), \(person.email),
                    \(person.emailVerified), \(person.displayName), \(person.groups))
                ON CONFLICT (issuer, subject) DO UPDATE SET email = EXCLUDED.email,
                    email_verified = EXCLUDED.email_verified, display_name = EXCLUDED.display_name,
                    groups = EXCLUDED.groups, last_sign_in = now()
                RETURNING \(unescaped: Self.columns)
                """)
            guard let user = try await Self.decode(rows).first else { throw StoreError.notFound("user") }
            return user
        }
    }

    /// One person by id.
    public func get(id: String) async throws -> User? {
        try await database.run { client in
            try await Self.decode(
                client.query("SELECT \(unescaped: Self.columns) FROM users WHERE user_id = \(id)")
            ).first
        }
    }

    /// One page of at most `limit` people in the order of their ids, after the id `after` (the page token: the
    /// last id of the page before, which is the token this page gives).
    public func list(after: String?, limit: Int) async throws -> Page<User> {
        try await Page.read(size: limit, token: \.id) { limit in
            try await database.run { client in
                try await Self.decode(
                    client.query(
                        """
                        SELECT \(unescaped: Self.columns) FROM users
                        WHERE (\(after)::text IS NULL OR user_id > \(after))
                        ORDER BY user_id LIMIT \(limit)
                        """))
            }
        }
    }

    static let columns =
        "user_id, issuer, subject, email, email_verified, display_name, groups, first_sign_in, last_sign_in"

    static func decode(_ rows: PostgresRowSequence) async throws -> [User] {
        var users: [User] = []
        for try await (id, issuer, subject, email, verified, name, groups, first, last) in rows.decode(
            (String, String, String, String, Bool, String, [String], Date, Date).self)
        {
            users.append(
                User(
                    id: id, issuer: issuer, subject: subject, email: email, emailVerified: verified,
                    displayName: name, groups: groups, firstSignIn: first, lastSignIn: last))
        }
        return users
    }
}
