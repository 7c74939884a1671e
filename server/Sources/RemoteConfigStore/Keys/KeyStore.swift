import Crypto
import Foundation
import Logging
import PostgresNIO

/// API keys in PostgreSQL.
public struct KeyStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Creates a key and returns it with its secret, which is never retrievable again.
    public func create(displayName: String, role: Role, project: String?, actor: AuditActor) async throws -> (
        APIKey, String
    ) {
        try await create(displayName: displayName, role: role, project: project, owner: actor.userId, actor: actor)
    }

    /// Creates a key that belongs to `owner` (a person's id; nil for none) and returns it with its secret.
    public func create(displayName: String, role: Role, project: String?, owner: String?, actor: AuditActor)
        async throws -> (APIKey, String)
    {
        let secret = KeySecret.generate(role: role)
        let id = Self.newID()
        let key = try await database.transaction { connection in
            if let project { try await ProjectStore.requireExists(project, on: connection, logger: database.logger) }
            let rows = try await connection.query(
                """
                INSERT INTO api_keys (key_id, display_name, role, project_id, key_hash, key_prefix, created_by,
                    owner_user)
                VALUES (\(id), \(displayName), \(role.rawValue), \(project), \(KeySecret.hash(secret)), \(KeySecret.prefix(of: secret)),
                    \(actor.keyId), \(owner))
                RETURNING \(unescaped: Self.columns)
                """, logger: database.logger)
            guard let key = try await Self.decode(rows).first else { throw StoreError.notFound("key") }
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "apiKey.create",
                detail: ["key": "apiKeys/\(id)", "role": role.rawValue], logger: database.logger)
            // Other servers may remember this secret as unknown: they forget that and read the keys again.
            try await StoreEvent.keyCreated(id: id).notify(on: connection, logger: database.logger)
            return key
        }
        return (key, secret)
    }

    /// Keys not revoked, oldest first; only those of `project` when given, only `owner`'s when given.
    public func list(project: String? = nil, owner: String? = nil) async throws -> [APIKey] {
        try await database.run { client in
            let rows =
                if let owner {
                    try await client.query(
                        "SELECT \(unescaped: Self.columns) FROM api_keys WHERE revoked_at IS NULL AND owner_user = \(owner) ORDER BY created_at, key_id"
                    )
                } else if let project {
                    try await client.query(
                        "SELECT \(unescaped: Self.columns) FROM api_keys WHERE revoked_at IS NULL AND project_id = \(project) ORDER BY created_at, key_id"
                    )
                } else {
                    try await client.query(
                        "SELECT \(unescaped: Self.columns) FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at, key_id"
                    )
                }
            return try await Self.decode(rows)
        }
    }

    /// One active key by id.
    public func get(id: String) async throws -> APIKey? {
        try await database.run { client in
            let rows = try await client.query(
                "SELECT \(unescaped: Self.columns) FROM api_keys WHERE key_id = \(id) AND revoked_at IS NULL")
            return try await Self.decode(rows).first
        }
    }

    /// Revokes a key; `StoreError.notFound` when it does not exist or is already revoked.
    public func revoke(id: String, actor: AuditActor) async throws {
        try await database.transaction { connection in
            let rows = try await connection.query(
                "UPDATE api_keys SET revoked_at = now() WHERE key_id = \(id) AND revoked_at IS NULL RETURNING project_id",
                logger: database.logger)
            var found = false
            var project: String?
            for try await value in rows.decode(String?.self) {
                found = true
                project = value
            }
            guard found else { throw StoreError.notFound("apiKeys/\(id)") }
            // A revoked key's approvals of requests not yet published no longer count: the requests they
            // approved go back to waiting for another approval.
            let withdrawn = try await connection.query(
                """
                DELETE FROM change_request_approvals a USING change_requests r
                WHERE a.request_id = r.request_id AND a.key_id = \(id) AND r.state IN ('OPEN', 'APPROVED', 'SCHEDULED')
                RETURNING r.project_id
                """, logger: database.logger)
            var projects = Set<String>()
            for try await project in withdrawn.decode(String.self) { projects.insert(project) }
            for project in projects.sorted() {
                _ = try await TemplateStore.lockProjectState(project, on: connection, logger: database.logger)
                try await ChangeRequestStore.settle(project, on: connection, logger: database.logger)
            }
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "apiKey.revoke",
                detail: ["key": "apiKeys/\(id)"], logger: database.logger)
            try await StoreEvent.revoked(keyID: id).notify(on: connection, logger: database.logger)
        }
    }

    /// The active key whose secret this is, or nil. Records its use, to the minute.
    public func authenticate(secret: String) async throws -> APIKey? {
        let hash = KeySecret.hash(secret)
        return try await database.run { client in
            // One statement: the key, and its last use moved on when the minute changed (a write at most once a
            // minute per key, not one per call).
            let rows = try await client.query(
                """
                WITH found AS (SELECT key_id FROM api_keys WHERE key_hash = \(hash) AND revoked_at IS NULL),
                touched AS (
                    UPDATE api_keys SET last_used_at = date_trunc('minute', now())
                    WHERE key_id IN (SELECT key_id FROM found)
                      AND (last_used_at IS NULL OR last_used_at < date_trunc('minute', now()))
                )
                SELECT \(unescaped: Self.columns) FROM api_keys WHERE key_id IN (SELECT key_id FROM found)
                """)
            return try await Self.decode(rows).first
        }
    }

    /// Makes `token` a valid global admin key (created if absent, restored if it had been revoked).
    public func ensureBootstrapAdmin(token: String) async throws {
        let hash = KeySecret.hash(token)
        let id = Self.newID()
        try await database.run { client in
            try await client.execute(
                """
                INSERT INTO api_keys (key_id, display_name, role, project_id, key_hash, key_prefix)
                VALUES (\(id), 'bootstrap admin', 'admin', NULL, \(hash), \(KeySecret.prefix(of: token)))
                ON CONFLICT (key_hash) DO UPDATE SET revoked_at = NULL, role = 'admin', project_id = NULL
                """)
        }
    }

    /// Whether any active global admin key exists (false on a first start).
    public func hasGlobalAdmin() async throws -> Bool {
        try await database.run { client in
            let rows = try await client.query(
                "SELECT count(*) FROM api_keys WHERE role = 'admin' AND project_id IS NULL AND revoked_at IS NULL")
            for try await count in rows.decode(Int.self) { return count > 0 }
            return false
        }
    }

    static let columns = "key_id, display_name, role, project_id, key_prefix, created_at, owner_user, last_used_at"

    static func decode(_ rows: PostgresRowSequence) async throws -> [APIKey] {
        var keys: [APIKey] = []
        for try await (id, name, role, project, prefix, created, owner, used) in rows.decode(
            (String, String, String, String?, String, Date, String?, Date?).self)
        {
            keys.append(
                APIKey(
                    id: id, displayName: name, role: Role(rawValue: role) ?? .viewer, project: project,
                    keyPrefix: prefix, createTime: created, owner: owner, lastUsedTime: used))
        }
        return keys
    }

    static func newID() -> String {
        RandomHex.make(bytes: 8)
    }
}

extension KeyStore {
    /// Every active key with the hash of its secret (what servers keep in memory).
    public func activeKeyHashes() async throws -> [(hash: Data, key: APIKey)] {
        try await database.run { client in
            let rows = try await client.query(
                "SELECT key_hash, \(unescaped: Self.columns) FROM api_keys WHERE revoked_at IS NULL")
            var result: [(hash: Data, key: APIKey)] = []
            for try await (hash, id, name, role, project, prefix, created, owner, used) in rows.decode(
                (Data, String, String, String, String?, String, Date, String?, Date?).self)
            {
                let key = APIKey(
                    id: id, displayName: name, role: Role(rawValue: role) ?? .viewer, project: project,
                    keyPrefix: prefix, createTime: created, owner: owner, lastUsedTime: used)
                result.append((hash, key))
            }
            return result
        }
    }
}
