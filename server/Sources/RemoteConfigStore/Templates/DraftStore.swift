import Foundation
import Logging
import PostgresNIO

/// Drafts in PostgreSQL: one per project, replaced whole, published in one transaction.
public struct DraftStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// The draft of `project`, or nil.
    public func get(_ project: String) async throws -> StoredDraft? {
        try await database.run { client in
            let rows = try await client.query(
                "SELECT \(unescaped: Self.columns) FROM drafts WHERE project_id = \(project)")
            return try await Self.decode(rows).first
        }
    }

    /// The expected revision that means "no draft exists yet" (revisions start at 1).
    public static let noDraft: Int64 = 0

    /// Replaces the draft; `expectedRevision` nil forces, `noDraft` saves only while there is none. Creates it
    /// when absent (its base is then `baseVersion`). Kept as a publish would keep it (`TemplateStore.check`).
    /// `promotedFrom` marks a draft a promotion made; a later save keeps the mark, as the draft still carries it.
    public func save(
        _ project: String, templateJSON: String, expectedRevision: Int64?, baseVersion: Int64, actor: AuditActor,
        promotedFrom: PromotedFrom? = nil
    ) async throws -> StoredDraft {
        try await database.transaction { connection in
            let latest = try await TemplateStore.lockProject(project, on: connection, logger: database.logger)
            // A draft is what would be published: held to the same rule on rollouts' conditions.
            let json = try await RolloutStore.guarded(
                templateJSON, project: project, latest: latest, publishing: nil, on: connection,
                logger: database.logger)
            let current = try await Self.decode(
                try await connection.query(
                    "SELECT \(unescaped: Self.columns) FROM drafts WHERE project_id = \(project)",
                    logger: database.logger)
            ).first
            if let expectedRevision, expectedRevision != current?.revision ?? Self.noDraft {
                throw TemplateStoreError.staleDraft(current: current?.revision ?? 0)
            }
            let rows = try await connection.query(
                """
                INSERT INTO drafts (project_id, template, base_version, updated_by, promoted_from_project,
                    promoted_from_version)
                VALUES (\(project), \(json)::json, \(current?.baseVersion ?? baseVersion), \(actor.displayName),
                    \(promotedFrom?.project), \(promotedFrom?.versionNumber))
                ON CONFLICT (project_id) DO UPDATE SET template = EXCLUDED.template,
                    revision = nextval('draft_revisions'), updated_at = now(), updated_by = EXCLUDED.updated_by,
                    promoted_from_project = coalesce(EXCLUDED.promoted_from_project, drafts.promoted_from_project),
                    promoted_from_version = CASE WHEN EXCLUDED.promoted_from_project IS NULL
                        THEN drafts.promoted_from_version ELSE EXCLUDED.promoted_from_version END
                RETURNING \(unescaped: Self.columns)
                """, logger: database.logger)
            guard let saved = try await Self.decode(rows).first else { throw StoreError.notFound("draft") }
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "draft.save",
                detail: ["revision": "\(saved.revision)"], logger: database.logger)
            return saved
        }
    }

    /// Discards the draft; `StoreError.notFound` when there is none.
    public func delete(_ project: String, actor: AuditActor) async throws {
        try await database.transaction { connection in
            let rows = try await connection.query(
                "DELETE FROM drafts WHERE project_id = \(project) RETURNING revision", logger: database.logger)
            var found = false
            for try await _ in rows { found = true }
            guard found else { throw StoreError.notFound("draft of \(project)") }
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "draft.discard", detail: [:],
                logger: database.logger)
        }
    }

    /// Publishes revision `revision` of the draft as the next version and removes it, in one transaction.
    /// `templateJSON` is that revision as validated by the caller before the transaction; a draft saved since
    /// is `staleDraft`, a base that is no longer the latest version `baseChanged` (unless `force`).
    public func publish(
        _ project: String, revision: Int64, templateJSON json: String, force: Bool, description: String,
        origin: UpdateOrigin = .restAPI, actor: AuditActor
    ) async throws -> StoredVersion {
        try await database.transaction { connection in
            let latest = try await TemplateStore.lockProject(project, on: connection, logger: database.logger)
            let rows = try await connection.query(
                "SELECT \(unescaped: Self.columns) FROM drafts WHERE project_id = \(project)", logger: database.logger)
            guard let draft = try await Self.decode(rows).first else {
                throw StoreError.notFound("draft of \(project)")
            }
            if revision != draft.revision {
                throw TemplateStoreError.staleDraft(current: draft.revision)
            }
            if !force, draft.baseVersion != latest {
                throw TemplateStoreError.baseChanged(base: draft.baseVersion, latest: latest)
            }
            let request = PublishRequest(
                templateJSON: json, expectedVersion: nil,
                updateType: draft.baseVersion == latest ? .incrementalUpdate : .forcedUpdate,
                updateUser: actor.updateUser, updateOrigin: origin,
                description: description, promotedFrom: draft.promotedFrom)
            let stored = try await TemplateStore.publish(
                project, request, actor: actor, on: connection, logger: database.logger)
            try await connection.query("DELETE FROM drafts WHERE project_id = \(project)", logger: database.logger)
            return stored
        }
    }

    static let columns = """
        project_id, template::text, revision, base_version, updated_at, updated_by, promoted_from_project, \
        promoted_from_version
        """

    static func decode(_ rows: PostgresRowSequence) async throws -> [StoredDraft] {
        var result: [StoredDraft] = []
        for try await (project, json, revision, base, time, user, fromProject, fromVersion) in rows.decode(
            (String, String, Int64, Int64, Date, String, String?, Int64?).self)
        {
            result.append(
                StoredDraft(
                    project: project, templateJSON: json, revision: revision, baseVersion: base, updateTime: time,
                    updatedBy: user, promotedFrom: PromotedFrom(project: fromProject, versionNumber: fromVersion)))
        }
        return result
    }
}
