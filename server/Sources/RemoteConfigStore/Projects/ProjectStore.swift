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
    /// approval settings move to the state the new settings give them. `StoreError.notFound` for no project; a
    /// `promotesTo` that does not exist or would close a cycle is refused naming the field.
    public func update(_ projectId: String, _ update: ProjectUpdate, actor: AuditActor) async throws -> Project {
        try await database.transaction { connection in
            let logger = database.logger
            _ = try await TemplateStore.lockProjectState(projectId, on: connection, logger: logger)
            if case .some(let target?) = update.promotesTo {
                try await Self.checkLink(from: projectId, to: target, on: connection, logger: logger)
            }
            let rows = try await connection.query(
                """
                UPDATE projects SET display_name = coalesce(\(update.displayName), display_name),
                    require_approval = coalesce(\(update.requireApproval), require_approval),
                    approvals_required = coalesce(\(update.approvalsRequired.map(Int32.init)), approvals_required),
                    environment_name = CASE WHEN \(update.environmentName != nil) THEN \(update.environmentName ?? nil)
                        ELSE environment_name END,
                    promotes_to = CASE WHEN \(update.promotesTo != nil) THEN \(update.promotesTo ?? nil)
                        ELSE promotes_to END,
                    local_parameters = coalesce(\(update.localParameters), local_parameters)
                WHERE project_id = \(projectId)
                RETURNING \(unescaped: Self.columns)
                """, logger: logger)
            guard let project = try await Self.decode(rows).first else {
                throw StoreError.notFound("project \(projectId)")
            }
            var detail: [String: String] = [:]
            if let name = update.displayName { detail["displayName"] = name }
            if let require = update.requireApproval { detail["requireApproval"] = String(require) }
            if let count = update.approvalsRequired { detail["approvalsRequired"] = String(count) }
            if let name = update.environmentName { detail["environmentName"] = name ?? "" }
            if let target = update.promotesTo { detail["promotesTo"] = target ?? "" }
            if let local = update.localParameters { detail["localParameters"] = local.joined(separator: ",") }
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

    /// Refuses linking `project` to `target` unless `target` exists and following `promotesTo` from it never
    /// comes back to `project`. Every link change takes one lock first, so two changes that would close a cycle
    /// together cannot both pass.
    static func checkLink(from project: String, to target: String, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        try await connection.query("SELECT pg_advisory_xact_lock(\(Self.linkLock))", logger: logger)
        guard target != project else { throw ProjectLinkError.cycle([project, project]) }
        let rows = try await connection.query(
            """
            WITH RECURSIVE chain (project_id, promotes_to, depth) AS (
                SELECT project_id, promotes_to, 1 FROM projects WHERE project_id = \(target)
                UNION ALL
                SELECT p.project_id, p.promotes_to, c.depth + 1 FROM projects p JOIN chain c ON p.project_id = c.promotes_to
                WHERE c.depth < 1000)
            SELECT project_id FROM chain
            """, logger: logger)
        var chain: [String] = []
        for try await id in rows.decode(String.self) { chain.append(id) }
        guard !chain.isEmpty else { throw ProjectLinkError.notFound(target) }
        if chain.contains(project) {
            throw ProjectLinkError.cycle([project] + chain.prefix { $0 != project } + [project])
        }
    }

    /// The advisory lock every change of a project's `promotesTo` takes.
    static let linkLock: Int64 = 0x7072_6f6d_6f74_6500

    static let columns = """
        project_id, display_name, created_at, require_approval, approvals_required, environment_name, promotes_to, \
        local_parameters
        """

    static func decode(_ rows: PostgresRowSequence) async throws -> [Project] {
        var projects: [Project] = []
        for try await (id, name, created, require, required, environment, promotesTo, local) in rows.decode(
            (String, String, Date, Bool, Int32, String?, String?, [String]).self)
        {
            projects.append(
                Project(
                    projectId: id, displayName: name, createTime: created, requireApproval: require,
                    approvalsRequired: Int(required), environmentName: environment, promotesTo: promotesTo,
                    localParameters: local))
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
