import Foundation
import Logging
import PostgresNIO

extension ChangeRequestStore {
    /// Publishes the request now through the one publish path (`TemplateStore.publish`: next version,
    /// audit, NOTIFY), with `updateOrigin: CHANGE_REQUEST` and the request's description. It must be
    /// `APPROVED` or `SCHEDULED`, or `OPEN` in a project that requires no approval; a base that is no longer
    /// the published version is `baseChanged` unless `force`. Audited as `changeRequest.publish`.
    public func publish(_ project: String, _ id: Int64, force: Bool, actor: AuditActor) async throws
        -> PublishedChangeRequest
    {
        try await database.transaction { connection in
            let lock = try await TemplateStore.lockProjectState(project, on: connection, logger: database.logger)
            let request = try await Self.read(project, id, on: connection, logger: database.logger)
            return try await Self.publish(
                request, lock: lock, force: force, scheduled: false, actor: actor, on: connection,
                logger: database.logger)
        }
    }

    /// Publishes every `SCHEDULED` request whose `publishTime` has come (by the database's clock, which every
    /// replica shares), each in its own transaction, and returns them. Safe to run on every replica at once:
    /// a request is published under its project's row lock, taken with `SKIP LOCKED` (a replica that finds it
    /// held leaves the project to the holder and its own next round), and only while it is still
    /// `SCHEDULED`, so it is published exactly once. The actor is the request's author.
    public func publishDue(limit: Int = 20) async throws -> [PublishedChangeRequest] {
        try await DueWork.run(
            database,
            due: """
                SELECT request_id, project_id FROM change_requests
                WHERE state = 'SCHEDULED' AND publish_time <= now() ORDER BY publish_time, request_id LIMIT \(limit)
                """,
            stillDue: { id in
                """
                SELECT request_id FROM change_requests
                WHERE request_id = \(id) AND state = 'SCHEDULED' AND publish_time <= now()
                """
            },
            work: { id, project, lock, connection, logger -> PublishedChangeRequest? in
                let request = try await Self.read(project, id, on: connection, logger: logger)
                return try await Self.publish(
                    request, lock: lock, force: true, scheduled: true, actor: request.author, on: connection,
                    logger: logger)
            })
    }

    /// How long until the next `SCHEDULED` request is due by the database's clock (zero or less: due now);
    /// nil when none waits.
    public func nextDue() async throws -> Duration? {
        try await DueWork.nextDue(
            database,
            """
            SELECT EXTRACT(EPOCH FROM min(publish_time) - now())::float8 FROM change_requests
            WHERE state = 'SCHEDULED'
            """)
    }

    /// The one way a change request becomes a version, inside the caller's transaction holding `lock`.
    static func publish(
        _ request: ChangeRequest, lock: TemplateStore.ProjectLock, force: Bool, scheduled: Bool, actor: AuditActor,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> PublishedChangeRequest {
        let id = request.id
        switch request.state {
        case .published, .rejected, .cancelled:
            throw ChangeRequestError.wrongState(id: id, state: request.state, action: "publish")
        case .open where lock.requireApproval:
            throw ChangeRequestError.notApproved(
                id: id, approvals: request.approvals.count, required: lock.approvalsRequired)
        case .open, .approved, .scheduled:
            break
        }
        let latest = lock.latestVersion
        // A rollout's plan or completion is what was approved: it goes over whatever is published now.
        let rollout = try await RolloutStore.carried(
            by: id, project: request.project, latest: latest, on: connection, logger: logger)
        if !force, rollout == nil, request.baseVersion != latest {
            throw ChangeRequestError.baseChanged(id: id, base: request.baseVersion, latest: latest)
        }
        guard let json = rollout?.templateJSON ?? request.templateJSON else {
            throw StoreError.notFound("template of \(ChangeRequest.name(id))")
        }
        let updateType =
            request.rollbackSource != nil
            ? UpdateType.rollback : request.baseVersion == latest ? .incrementalUpdate : .forcedUpdate
        let version = try await TemplateStore.publish(
            request.project,
            PublishRequest(
                templateJSON: json, expectedVersion: nil, updateType: updateType, updateUser: actor.updateUser,
                updateOrigin: .changeRequest, description: request.description,
                rollbackSource: request.rollbackSource, changeRequest: id, rollout: rollout?.rollout.id,
                promotedFrom: request.promotedFrom),
            actor: actor, on: connection, logger: logger)
        if let rollout {
            switch rollout.change {
            case .start:
                try await RolloutStore.recordStep(
                    rollout.rollout, step: 0, version: version, actor: actor, on: connection, logger: logger)
            case .completion:
                try await RolloutStore.end(
                    rollout.rollout, as: .completed, version: version.versionNumber, actor: actor, keeping: id,
                    on: connection, logger: logger)
            }
        }
        try await connection.query(
            """
            UPDATE change_requests SET state = 'PUBLISHED', published_version = \(version.versionNumber),
                updated_at = now()
            WHERE request_id = \(id)
            """, logger: logger)
        var detail = [
            "changeRequest": ChangeRequest.name(id), "versionNumber": String(version.versionNumber),
            "updateType": updateType.rawValue,
        ]
        if scheduled { detail["scheduled"] = "true" }
        try await AuditLog.append(
            on: connection, project: request.project, actor: actor, action: "changeRequest.publish", detail: detail,
            logger: logger)
        let published = try await read(request.project, id, on: connection, logger: logger)
        return PublishedChangeRequest(request: published, version: version)
    }
}
