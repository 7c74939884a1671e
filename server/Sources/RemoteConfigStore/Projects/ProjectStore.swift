import Foundation
import Logging
import PostgresNIO

/// Projects in PostgreSQL.
public struct ProjectStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Creates a project; `StoreError.alreadyExists` when the id is taken.
    public func create(projectId: String, displayName: String, actor: AuditActor) async throws -> Project {
        do {
            return try await database.transaction { connection in
                let rows = try await connection.query(
                    """
                    INSERT INTO projects (project_id, display_name) VALUES (\(projectId), \(displayName))
                    ON CONFLICT (project_id) DO NOTHING
                    RETURNING \(unescaped: Self.columns)
                    """, logger: database.logger)
                guard let project = try await Self.decode(rows).first else {
                    throw StoreError.alreadyExists(
                        "project \(projectId)", field: StoreErrorField(name: "projectId", reason: "ALREADY_EXISTS"))
                }
                try await AuditLog.append(
                    on: connection, project: projectId, actor: actor, action: "project.create",
                    detail: ["displayName": displayName], logger: database.logger)
                return project
            }
        }
    }

    /// Changes a project's settings in one transaction with its audit event; change requests waiting on the
    /// approval settings move to the state the new settings give them. `StoreError.notFound` for no project.
    public func update(_ projectId: String, _ update: ProjectUpdate, actor: AuditActor) async throws -> Project {
        try await database.transaction { connection in
            _ = try await TemplateStore.lockProjectState(projectId, on: connection, logger: database.logger)
            let rows = try await connection.query(
                """
                UPDATE projects SET display_name = coalesce(\(update.displayName), display_name),
                    require_approval = coalesce(\(update.requireApproval), require_approval),
                    approvals_required = coalesce(\(update.approvalsRequired.map(Int32.init)), approvals_required)
                WHERE project_id = \(projectId)
                RETURNING \(unescaped: Self.columns)
                """, logger: database.logger)
            guard let project = try await Self.decode(rows).first else {
                throw StoreError.notFound("project \(projectId)")
            }
            var detail: [String: String] = [:]
            if let name = update.displayName { detail["displayName"] = name }
            if let require = update.requireApproval { detail["requireApproval"] = String(require) }
            if let count = update.approvalsRequired { detail["approvalsRequired"] = String(count) }
            try await AuditLog.append(
                on: connection, project: projectId, actor: actor, action: "project.update", detail: detail,
                logger: database.logger)
            try await ChangeRequestStore.settle(projectId, on: connection, logger: database.logger)
            return project
        }
    }

    /// All projects, or only `only` when given (a key scoped to one project sees just that one).
    public func list(only: String? = nil) async throws -> [Project] {
        try await database.run { client in
            let rows =
                if let only {
                    try await client.query(
                        "SELECT \(unescaped: Self.columns) FROM projects WHERE project_id = \(only)")
                } else {
                    try await client.query(
                        "SELECT \(unescaped: Self.columns) FROM projects ORDER BY project_id")
                }
            return try await Self.decode(rows)
        }
    }

    /// One project, or nil.
    public func get(_ projectId: String) async throws -> Project? {
        try await list(only: projectId).first
    }

    static let columns = "project_id, display_name, created_at, require_approval, approvals_required"

    static func decode(_ rows: PostgresRowSequence) async throws -> [Project] {
        var projects: [Project] = []
        for try await (id, name, created, require, required) in rows.decode((String, String, Date, Bool, Int32).self) {
            projects.append(
                Project(
                    projectId: id, displayName: name, createTime: created, requireApproval: require,
                    approvalsRequired: Int(required)))
        }
        return projects
    }

    /// Throws `notFound` naming the body's `project` field unless the project exists: for writes whose body
    /// names a project (a key, a role binding), inside their transaction.
    static func requireExists(_ project: String, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query("SELECT 1 FROM projects WHERE project_id = \(project)", logger: logger)
        for try await _ in rows { return }
        throw StoreError.notFound(
            "project \(project)", field: StoreErrorField(name: "project", reason: "PROJECT_NOT_FOUND"))
    }
}
