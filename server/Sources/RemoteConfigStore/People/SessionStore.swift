import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

/// Sessions in PostgreSQL, looked up by the SHA-256 of their secret on every call, so that every server
/// sharing the database honours a session and a revocation at once.
public struct SessionStore: Sendable {
    let database: Database
    /// A session ends this long after it was made, however active.
    public let maxAge: Duration
    /// A session ends this long after its last use.
    public let idleTimeout: Duration

    public init(database: Database, maxAge: Duration = .seconds(43_200), idleTimeout: Duration = .seconds(7_200)) {
        self.database = database
        self.maxAge = maxAge
        self.idleTimeout = idleTimeout
    }

    /// Makes a session for `user` and returns it with its secret (shown once: the cookie, or the token).
    public func create(user: String, kind: UserSession.Kind) async throws -> (UserSession, String) {
        let secret = SessionSecret.generate(prefix: kind == .personal ? "rc_user_" : "")
        let csrf = SessionSecret.generate()
        let seconds = maxAge.inSeconds
        let session = try await database.run { client in
            let rows = try await client.query(
                """
                INSERT INTO user_sessions (session_id, secret_hash, user_id, kind, csrf_token, expires_at)
                VALUES (\(KeyStore.newID()), \(KeySecret.hash(secret)), \(user), \(kind.rawValue), \(csrf),
                    now() + make_interval(secs => \(seconds)))
                RETURNING \(unescaped: Self.columns)
                """)
            guard let session = try await Self.decode(rows).first else { throw StoreError.notFound("session") }
            return session
        }
        return (session, secret)
    }

    /// The live session whose secret this is, with its person; nil when unknown, revoked, expired or idle too
    /// long. Moves its last use on, at most once a minute.
    public func authenticate(secret: String) async throws -> (UserSession, User)? {
        let hash = KeySecret.hash(secret)
        let idle = idleTimeout.inSeconds
        return try await database.run { client in
            let rows = try await client.query(
                """
                WITH found AS (
                    SELECT session_id FROM user_sessions
                    WHERE secret_hash = \(hash) AND revoked_at IS NULL AND expires_at > now()
                      AND last_seen_at > now() - make_interval(secs => \(idle))
                ),
                touched AS (
                    UPDATE user_sessions SET last_seen_at = now()
                    WHERE session_id IN (SELECT session_id FROM found) AND last_seen_at < now() - interval '1 minute'
                )
                SELECT \(unescaped: Self.sessionAndUserColumns)
                FROM user_sessions s JOIN users u ON u.user_id = s.user_id
                WHERE s.session_id IN (SELECT session_id FROM found)
                """)
            for try await row in rows {
                let columns = try row.decode(
                    (
                        String, String, String, String, Date, Date, Date, String, String, String, String, Bool, String,
                        [String], Date, Date
                    ).self)
                let session = UserSession(
                    id: columns.0, userID: columns.1, kind: UserSession.Kind(rawValue: columns.2) ?? .console,
                    csrfToken: columns.3, createTime: columns.4, lastSeenTime: columns.5, expireTime: columns.6)
                let user = User(
                    id: columns.7, issuer: columns.8, subject: columns.9, email: columns.10, emailVerified: columns.11,
                    displayName: columns.12, groups: columns.13, firstSignIn: columns.14, lastSignIn: columns.15)
                return (session, user)
            }
            return nil
        }
    }

    /// The live sessions of a person, newest first.
    public func list(user: String) async throws -> [UserSession] {
        let idle = idleTimeout.inSeconds
        return try await database.run { client in
            try await Self.decode(
                client.query(
                    """
                    SELECT \(unescaped: Self.columns) FROM user_sessions
                    WHERE user_id = \(user) AND revoked_at IS NULL AND expires_at > now()
                      AND last_seen_at > now() - make_interval(secs => \(idle))
                    ORDER BY created_at DESC
                    """))
        }
    }

    /// Ends one session (sign-out): true when it was live.
    @discardableResult
    public func revoke(id: String) async throws -> Bool {
        try await database.run { client in
            let rows = try await client.query(
                """
                UPDATE user_sessions SET revoked_at = now() WHERE session_id = \(id) AND revoked_at IS NULL
                RETURNING session_id
                """)
            for try await _ in rows { return true }
            return false
        }
    }

    /// Ends every session of a person, audited as `user.sessions.revoke`; returns how many were live.
    public func revokeAll(user: String, actor: AuditActor) async throws -> Int {
        try await database.transaction { connection in
            let rows = try await connection.query(
                "UPDATE user_sessions SET revoked_at = now() WHERE user_id = \(user) AND revoked_at IS NULL RETURNING 1",
                logger: database.logger)
            var count = 0
            for try await _ in rows { count += 1 }
            try await AuditLog.append(
                on: connection, project: nil, actor: actor, action: "user.sessions.revoke",
                detail: ["user": "users/\(user)", "sessions": String(count)], logger: database.logger)
            return count
        }
    }

    static let columns = "session_id, user_id, kind, csrf_token, created_at, last_seen_at, expires_at"

    /// A session's columns then its person's, for the join that authenticates.
    static let sessionAndUserColumns = [("s", columns), ("u", UserStore.columns)].map { table, columns in
        columns.split(separator: ",").map { "\(table)." + $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: ", ")
    }.joined(separator: ", ")

    static func decode(_ rows: PostgresRowSequence) async throws -> [UserSession] {
        var sessions: [UserSession] = []
        for try await (id, user, kind, csrf, created, seen, expires) in rows.decode(
            (String, String, String, String, Date, Date, Date).self)
        {
            sessions.append(
                UserSession(
                    id: id, userID: user, kind: UserSession.Kind(rawValue: kind) ?? .console, csrfToken: csrf,
                    createTime: created, lastSeenTime: seen, expireTime: expires))
        }
        return sessions
    }
}
