import Foundation
import Logging
import PostgresNIO

/// Published versions in PostgreSQL: append-only, numbered contiguously per project.
public struct TemplateStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// The newest version of `project`, or nil before the first publish.
    public func latest(_ project: String) async throws -> StoredVersion? {
        try await database.run { client in
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.columns) FROM template_versions v
                JOIN projects p ON p.project_id = v.project_id AND p.latest_version = v.version_number
                WHERE v.project_id = \(project)
                """)
            return try await Self.decode(rows).first
        }
    }

    /// Version `number` of `project`, or nil.
    public func version(_ project: String, _ number: Int64) async throws -> StoredVersion? {
        try await database.run { client in
            let rows = try await client.query(
                "SELECT \(unescaped: Self.columns) FROM template_versions v WHERE v.project_id = \(project) AND v.version_number = \(number)"
            )
            return try await Self.decode(rows).first
        }
    }

    /// The latest version number of every project (0 before a first publish): what caches compare against.
    public func latestVersions() async throws -> [String: Int64] {
        try await database.run { client in
            var result: [String: Int64] = [:]
            let rows = try await client.query("SELECT project_id, latest_version FROM projects")
            for try await (project, version) in rows.decode((String, Int64).self) { result[project] = version }
            return result
        }
    }

    /// One page of versions newest first, filtered by `query`; the token is the last version number shown.
    public func list(_ project: String, _ query: VersionQuery) async throws -> Page<StoredVersion> {
        try await Page.read(size: query.pageSize, token: \.versionNumber) { limit in
            try await database.run { client in
                let before = query.before ?? Int64.max
                let end = query.endVersionNumber ?? Int64.max
                let start = query.startTime ?? Date.distantPast
                let until = query.endTime ?? Date.distantFuture
                let rows = try await client.query(
                    """
                    SELECT \(unescaped: Self.columns) FROM template_versions v
                    WHERE v.project_id = \(project) AND v.version_number < \(before) AND v.version_number <= \(end)
                      AND v.update_time >= \(start) AND v.update_time < \(until)
                    ORDER BY v.version_number DESC LIMIT \(limit)
                    """)
                return try await Self.decode(rows)
            }
        }
    }

    /// The template a publish of `templateJSON` would store now (what `validateOnly` answers): the same as the
    /// text given, or without the conditions of halted and completed rollouts; `TemplateStoreError.invalid`
    /// for what a publish would refuse.
    public func check(_ project: String, templateJSON: String) async throws -> String {
        try await database.run { client in
            try await client.withConnection { connection in
                let rows = try await connection.query(
                    "SELECT latest_version FROM projects WHERE project_id = \(project)", logger: database.logger)
                var latest: Int64 = 0
                for try await number in rows.decode(Int64.self) { latest = number }
                return try await RolloutStore.guarded(
                    templateJSON, project: project, latest: latest, publishing: nil, on: connection,
                    logger: database.logger)
            }
        }
    }

    /// Publishes the next version in one transaction: lock the project, compare, insert, audit, notify. The
    /// stored template may differ from the one sent (see `check`): callers answer and serve what was stored.
    public func publish(_ project: String, _ request: PublishRequest, actor: AuditActor) async throws -> StoredVersion {
        try await database.transaction { connection in
            try await Self.publish(project, request, actor: actor, on: connection, logger: database.logger)
        }
    }

    static func publish(
        _ project: String, _ request: PublishRequest, actor: AuditActor, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> StoredVersion {
        let lock = try await lockProjectState(project, on: connection, logger: logger)
        // Checked under the project's lock, so turning the setting on and publishing cannot cross.
        if lock.requireApproval, request.changeRequest == nil, request.rollout == nil {
            throw TemplateStoreError.approvalRequired(project: project)
        }
        let latest = lock.latestVersion
        if let expected = request.expectedVersion, expected != latest {
            throw TemplateStoreError.stale(current: latest)
        }
        let next = latest + 1
        // Whatever path publishes (a change request, a rollback, a store sync): a halted or completed rollout's
        // condition is dropped here, and a `rollout_…` condition or value no live rollout owns is refused.
        let json = try await RolloutStore.guarded(
            request.templateJSON, project: project, latest: latest, publishing: request.rollout, on: connection,
            logger: logger)
        let rows = try await connection.query(
            """
            INSERT INTO template_versions AS v (project_id, version_number, template, update_user, update_origin,
                update_type, description, rollback_source, promoted_from_project, promoted_from_version)
            VALUES (\(project), \(next), \(json)::json, \(request.updateUser), \(request.updateOrigin.rawValue),
                \(request.updateType.rawValue), \(request.description), \(request.rollbackSource),
                \(request.promotedFrom?.project), \(request.promotedFrom?.versionNumber))
            RETURNING \(unescaped: columns)
            """, logger: logger)
        guard let stored = try await decode(rows).first else { throw StoreError.notFound("version") }
        try await connection.query(
            "UPDATE projects SET latest_version = \(next) WHERE project_id = \(project)", logger: logger)
        var detail = ["versionNumber": "\(next)", "updateType": request.updateType.rawValue]
        if let source = request.rollbackSource { detail["rollbackSource"] = "\(source)" }
        if let id = request.changeRequest { detail["changeRequest"] = ChangeRequest.name(id) }
        if let id = request.rollout { detail["rollout"] = Rollout.name(id) }
        if let source = request.promotedFrom {
            detail["promotedFrom"] = "\(source.project) version \(source.versionNumber)"
        }
        try await AuditLog.append(
            on: connection, project: project, actor: actor,
            action: request.updateType == .rollback ? "template.rollback" : "template.publish", detail: detail,
            logger: logger)
        try await StoreEvent.published(project: project, version: next).notify(on: connection, logger: logger)
        // In this transaction: webhooks hear of the version exactly when it commits.
        try await WebhookEvents.published(stored, previous: latest, actor: actor, on: connection, logger: logger)
        // In this transaction too: a publish that edits a live rollout's parameter or condition pauses it.
        try await RolloutStore.noticePublish(
            stored, previous: latest, by: request.rollout, actor: actor, on: connection, logger: logger)
        return stored
    }

    /// Locks the project row for the transaction and returns its latest version number.
    static func lockProject(_ project: String, on connection: PostgresConnection, logger: Logger) async throws
        -> Int64
    {
        try await lockProjectState(project, on: connection, logger: logger).latestVersion
    }

    /// What a publish decides on, read under the project row's lock.
    struct ProjectLock: Sendable {
        let latestVersion: Int64
        let requireApproval: Bool
        let approvalsRequired: Int
    }

    /// Locks the project row for the transaction and returns its publishing state; with `skipLocked`, nil
    /// when another transaction holds the lock (the scheduler then tries again on its next round).
    static func lockProjectState(
        _ project: String, skipLocked: Bool, on connection: PostgresConnection, logger: Logger
    ) async throws -> ProjectLock? {
        let rows = try await connection.query(
            """
            SELECT latest_version, require_approval, approvals_required FROM projects WHERE project_id = \(project)
            FOR UPDATE \(unescaped: skipLocked ? "SKIP LOCKED" : "")
            """, logger: logger)
        for try await (latest, require, required) in rows.decode((Int64, Bool, Int32).self) {
            return ProjectLock(latestVersion: latest, requireApproval: require, approvalsRequired: Int(required))
        }
        if skipLocked { return nil }
        throw StoreError.notFound("project \(project)")
    }

    /// Locks the project row and returns its publishing state; `StoreError.notFound` for no such project.
    static func lockProjectState(_ project: String, on connection: PostgresConnection, logger: Logger) async throws
        -> ProjectLock
    {
        guard let lock = try await lockProjectState(project, skipLocked: false, on: connection, logger: logger) else {
            throw StoreError.notFound("project \(project)")
        }
        return lock
    }

    /// The version of `source` promoted into `project` last (the base of the next promotion between them), nil
    /// when none was.
    public func lastPromotion(into project: String, from source: String) async throws -> Int64? {
        try await database.run { client in
            let rows = try await client.query(
                """
                SELECT promoted_from_version FROM template_versions
                WHERE project_id = \(project) AND promoted_from_project = \(source)
                ORDER BY version_number DESC LIMIT 1
                """)
            for try await version in rows.decode(Int64.self) { return version }
            return nil
        }
    }

    static let columns = """
        v.project_id, v.version_number, v.template::text, v.update_time, v.update_user, v.update_origin, \
        v.update_type, v.description, v.rollback_source, v.promoted_from_project, v.promoted_from_version
        """

    static func decode(_ rows: PostgresRowSequence) async throws -> [StoredVersion] {
        var result: [StoredVersion] = []
        for try await (project, number, json, time, user, origin, type, description, source, fromProject, fromVersion)
            in rows.decode((String, Int64, String, Date, String, String, String, String, Int64?, String?, Int64?).self)
        {
            result.append(
                StoredVersion(
                    project: project, versionNumber: number, templateJSON: json, updateTime: time, updateUser: user,
                    updateOrigin: UpdateOrigin(stored: origin), updateType: UpdateType(stored: type),
                    description: description, rollbackSource: source,
                    promotedFrom: PromotedFrom(project: fromProject, versionNumber: fromVersion)))
        }
        return result
    }
}
