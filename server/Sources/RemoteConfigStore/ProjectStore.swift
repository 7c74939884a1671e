import Foundation
import Logging
import PostgresNIO

/// A project: one app (or family of apps) with its own templates and client keys.
public struct Project: Sendable, Equatable {
    public let projectId: String
    public let displayName: String
    public let createTime: Date
}

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
                    RETURNING project_id, display_name, created_at
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

    /// All projects, or only `only` when given (a key scoped to one project sees just that one).
    public func list(only: String? = nil) async throws -> [Project] {
        try await database.run { client in
            let rows =
                if let only {
                    try await client.query(
                        "SELECT project_id, display_name, created_at FROM projects WHERE project_id = \(only)")
                } else {
                    try await client.query(
                        "SELECT project_id, display_name, created_at FROM projects ORDER BY project_id")
                }
            return try await Self.decode(rows)
        }
    }

    /// One project, or nil.
    public func get(_ projectId: String) async throws -> Project? {
        try await list(only: projectId).first
    }

    static func decode(_ rows: PostgresRowSequence) async throws -> [Project] {
        var projects: [Project] = []
        for try await (id, name, created) in rows.decode((String, String, Date).self) {
            projects.append(Project(projectId: id, displayName: name, createTime: created))
        }
        return projects
    }
}
