import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

extension RolloutStore {
    /// Which change request of a rollout a request is: the one that carries its plan, or its completion.
    enum CarriedRequest: String {
        case plan = "change_request"
        case completion = "completion_request"
    }

    /// Opens the change request that carries a proposed rollout's plan (its first step over `base`), in the
    /// caller's transaction; the request is reviewed like any other.
    static func propose(
        _ rollout: Rollout, templateJSON: String, base: Int64, actor: AuditActor, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let first = RolloutTemplate.format(percent: rollout.steps[0].percent)
        let plan = rollout.steps.map { RolloutTemplate.format(percent: $0.percent) + "%" }.joined(separator: ", ")
        try await open(
            .plan, of: rollout, templateJSON: templateJSON, base: base,
            summary: "\(rollout.parameter) = \(rollout.value.prefix(80)) for \(plan)", detail: ["percent": first],
            actor: actor, on: connection, logger: logger)
    }

    /// Opens the change request that carries a running or paused rollout's completion (its value the default
    /// for everyone, its condition removed, over `base`), in the caller's transaction.
    static func proposeCompletion(
        _ rollout: Rollout, templateJSON: String, base: Int64, actor: AuditActor, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        try await open(
            .completion, of: rollout, templateJSON: templateJSON, base: base,
            summary: "complete, \(rollout.parameter) = \(rollout.value.prefix(80)) for everyone",
            detail: ["completes": "true"], actor: actor, on: connection, logger: logger)
    }

    /// Opens a change request of `rollout` carrying `templateJSON` and links it to the rollout as `kind`;
    /// audited as `changeRequest.create`, and sent to webhooks as `changeRequest.opened`.
    private static func open(
        _ kind: CarriedRequest, of rollout: Rollout, templateJSON: String, base: Int64, summary: String,
        detail extra: [String: String], actor: AuditActor, on connection: PostgresConnection, logger: Logger
    ) async throws {
        var description = "\(Rollout.name(rollout.id)): \(summary)"
        if !rollout.description.isEmpty { description = rollout.description + " (" + description + ")" }
        let rows = try await connection.query(
            """
            INSERT INTO change_requests (project_id, description, author_key, author_name, base_version, template,
                author_user, author_email)
            VALUES (\(rollout.project), \(String(description.prefix(500))), \(actor.keyId), \(actor.displayName),
                \(base), \(templateJSON)::json, \(actor.userId), \(actor.email))
            RETURNING request_id
            """, logger: logger)
        var created: Int64?
        for try await id in rows.decode(Int64.self) { created = id }
        guard let id = created else { throw StoreError.notFound("change request") }
        try await connection.query(
            """
            UPDATE rollouts SET \(unescaped: kind.rawValue) = \(id), updated_at = now()
            WHERE rollout_id = \(rollout.id)
            """, logger: logger)
        try await ChangeRequestStore.settle(rollout.project, on: connection, logger: logger)
        let request = try await ChangeRequestStore.read(rollout.project, id, on: connection, logger: logger)
        var detail = [
            "changeRequest": ChangeRequest.name(id), "baseVersionNumber": String(base),
            "state": request.state.rawValue, "rollout": Rollout.name(rollout.id),
        ]
        detail.merge(extra) { _, new in new }
        try await AuditLog.append(
            on: connection, project: rollout.project, actor: actor, action: "changeRequest.create", detail: detail,
            logger: logger)
        try await WebhookEvents.changeRequest(
            .changeRequestOpened, request, comment: nil, actor: actor, on: connection, logger: logger)
    }

    /// The rollout change that change request `id` carries (a proposed rollout's start, a live one's
    /// completion), made over version `latest`; nil when it carries none.
    static func carried(
        by id: Int64, project: String, latest: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws -> CarriedRollout? {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: columns) FROM rollouts r
            WHERE r.project_id = \(project)
              AND ((r.change_request = \(id) AND r.state = 'PROPOSED')
                   OR (r.completion_request = \(id) AND r.state IN ('RUNNING', 'PAUSED')))
            FOR UPDATE
            """, logger: logger)
        guard let rollout = try await decode(rows).first else { return nil }
        do {
            if rollout.state == .proposed {
                let json = try await template(
                    of: rollout, at: 0, latest: latest, project: project, on: connection, logger: logger)
                return CarriedRollout(rollout: rollout, change: .start, templateJSON: json)
            }
            let published = try await latestTemplate(project, latest, on: connection, logger: logger)
            guard let done = rollout.template.completing(published) else {
                throw RolloutError.parameterNotFound(rollout.parameter)
            }
            return CarriedRollout(rollout: rollout, change: .completion, templateJSON: try prepared(done))
        } catch RolloutError.parameterNotFound(let parameter) {
            // Someone removed the parameter since the request was opened: nothing it can start or complete.
            throw StoreError.notFound(
                "parameter \(parameter) of \(Rollout.name(rollout.id))",
                field: StoreErrorField(name: "parameter", reason: "PARAMETER_NOT_FOUND"))
        }
    }

    /// Cancels the change requests still open for a rollout that ends as `state` (the plan of a proposed one,
    /// the completion of a live one), but `keeping`; each cancellation is audited and sent to webhooks.
    static func withdrawRequests(
        _ rollout: Rollout, as state: Rollout.State, keeping: Int64?, actor: AuditActor,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        let comment = "\(Rollout.name(rollout.id)) was \(state == .halted ? "halted" : "completed")"
        for id in [rollout.changeRequest, rollout.completionRequest].compactMap({ $0 }) where id != keeping {
            let rows = try await connection.query(
                """
                UPDATE change_requests SET state = 'CANCELLED', closed_by_key = \(actor.keyId),
                    closed_by_name = \(actor.email ?? actor.displayName), closed_by_user = \(actor.userId),
                    closed_at = now(), close_comment = \(comment), updated_at = now()
                WHERE request_id = \(id) AND state IN ('OPEN', 'APPROVED', 'SCHEDULED')
                RETURNING request_id
                """, logger: logger)
            var cancelled = false
            for try await _ in rows { cancelled = true }
            guard cancelled else { continue }
            try await AuditLog.append(
                on: connection, project: rollout.project, actor: actor, action: "changeRequest.cancel",
                detail: [
                    "changeRequest": ChangeRequest.name(id), "rollout": Rollout.name(rollout.id), "comment": comment,
                ], logger: logger)
            let request = try await ChangeRequestStore.read(rollout.project, id, on: connection, logger: logger)
            try await WebhookEvents.changeRequest(
                .changeRequestCancelled, request, comment: comment, actor: actor, on: connection, logger: logger)
        }
    }

    /// What the rejection or cancellation of change request `id` does to the rollout it carries: a proposed
    /// rollout is halted (it will not start now); a live one whose completion it carried goes on as it was, and
    /// its completion may be asked for again.
    static func proposalClosed(
        _ id: Int64, project: String, actor: AuditActor, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: columns) FROM rollouts r
            WHERE r.project_id = \(project) AND r.change_request = \(id) AND r.state = 'PROPOSED'
            """, logger: logger)
        for rollout in try await decode(rows) {
            try await end(rollout, as: .halted, version: nil, actor: actor, on: connection, logger: logger)
        }
        try await connection.query(
            """
            UPDATE rollouts SET completion_request = NULL, updated_at = now()
            WHERE project_id = \(project) AND completion_request = \(id)
            """, logger: logger)
    }
}
