import Foundation
import Logging
import PostgresNIO

/// Role bindings in PostgreSQL. Read on every call that a person makes, so a removed binding takes its role
/// away at once on every server.
public struct RoleBindingStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Adds a binding, audited as `roleBinding.create`; `StoreError.alreadyExists` when the same member
    /// already has that role there, `notFound` for an unknown project.
    public func create(member: String, role: Role, project: String?, actor: AuditActor) async throws -> RoleBinding {
        let id = KeyStore.newID()
        return try await database.transaction { connection in
            if let project { try await ProjectStore.requireExists(project, on: connection, logger: database.logger) }
            let rows = try await connection.query(
                """
                INSERT INTO role_bindings (binding_id, member, role, project_id, created_by_user, created_by_key,
                    created_by_name)
                VALUES (\(id), \(member), \(role.rawValue), \(project), \(actor.userId), \(actor.keyId),
                    \(actor.email ?? actor.displayName))
                ON CONFLICT DO NOTHING
                RETURNING \(unescaped: Self.columns)
                """, logger: database.logger)
            guard let binding = try await Self.decode(rows).first else {
                throw StoreError.alreadyExists(
                    "a binding of \(member) as \(role.rawValue) on \(project ?? "every project")",
                    field: StoreErrorField(name: "member", reason: "ALREADY_BOUND"))
            }
            var detail = ["roleBinding": "roleBindings/\(id)", "member": member, "role": role.rawValue]
            if let project { detail["project"] = project }
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "roleBinding.create", detail: detail,
                logger: database.logger)
            return binding
        }
    }

    /// Makes `member` an admin of every project, unless it already is (`--oidc-admins` at start).
    public func bootstrapAdmin(member: String) async throws {
        try await database.run { client in
            try await client.execute(
                """
                INSERT INTO role_bindings (binding_id, member, role, project_id, bootstrap)
                VALUES (\(KeyStore.newID()), \(member), 'admin', NULL, true)
                ON CONFLICT DO NOTHING
                """)
        }
    }

    /// Bindings, oldest first; those of one project (and the global ones) when `project` is given.
    public func list(project: String? = nil) async throws -> [RoleBinding] {
        try await database.run { client in
            try await Self.decode(
                client.query(
                    """
                    SELECT \(unescaped: Self.columns) FROM role_bindings
                    WHERE \(project)::text IS NULL OR project_id = \(project) OR project_id IS NULL
                    ORDER BY created_at, binding_id
                    """))
        }
    }

    /// The bindings any of `members` has, wherever they apply.
    public func bindings(of members: Set<String>) async throws -> [RoleBinding] {
        guard !members.isEmpty else { return [] }
        let list = members.sorted()
        return try await database.run { client in
            try await Self.decode(
                client.query(
                    "SELECT \(unescaped: Self.columns) FROM role_bindings WHERE member = ANY(\(list))"))
        }
    }

    /// One binding by id.
    public func get(id: String) async throws -> RoleBinding? {
        try await database.run { client in
            try await Self.decode(
                client.query("SELECT \(unescaped: Self.columns) FROM role_bindings WHERE binding_id = \(id)")
            ).first
        }
    }

    /// Removes a binding, audited as `roleBinding.delete`; false when there was none.
    public func delete(id: String, actor: AuditActor) async throws -> Bool {
        try await database.transaction { connection in
            let rows = try await connection.query(
                "DELETE FROM role_bindings WHERE binding_id = \(id) RETURNING \(unescaped: Self.columns)",
                logger: database.logger)
            guard let binding = try await Self.decode(rows).first else { return false }
            var detail = ["roleBinding": "roleBindings/\(id)", "member": binding.member, "role": binding.role.rawValue]
            if let project = binding.project { detail["project"] = project }
            try await AuditLog.append(
                on: connection, project: binding.project, actor: actor, action: "roleBinding.delete", detail: detail,
                logger: database.logger)
            return true
        }
    }

    static let columns =
        "binding_id, member, role, project_id, created_at, created_by_user, created_by_key, created_by_name, bootstrap"

    static func decode(_ rows: PostgresRowSequence) async throws -> [RoleBinding] {
        var bindings: [RoleBinding] = []
        for try await (id, member, role, project, created, user, key, name, bootstrap) in rows.decode(
            (String, String, String, String?, Date, String?, String?, String, Bool).self)
        {
            let creator =
                bootstrap
                ? nil : AuditActor(keyId: key, displayName: name, userId: user, email: user == nil ? nil : name)
            bindings.append(
                RoleBinding(
                    id: id, member: member, role: Role(rawValue: role) ?? .viewer, project: project,
                    createTime: created, createdBy: creator))
        }
        return bindings
    }
}
