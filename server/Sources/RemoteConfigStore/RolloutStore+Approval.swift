import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

extension RolloutStore {
    /// Opens the change request that carries a proposed rollout's plan (its first step over `base`), in the
    /// caller's transaction; the request is reviewed like any other.
    static func propose(
        _ rollout: Rollout, templateJSON: String, base: Int64, actor: AuditActor, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let first = RolloutTemplate.format(percent: rollout.steps[0].percent)
        let plan = rollout.steps.map { RolloutTemplate.format(percent: $0.percent) + "%" }.joined(separator: ", ")
        var description = "\(Rollout.name(rollout.id)): \(rollout.parameter) = \(rollout.value.prefix(80)) for \(plan)"
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
            "UPDATE rollouts SET change_request = \(id) WHERE rollout_id = \(rollout.id)", logger: logger)
        try await ChangeRequestStore.settle(rollout.project, on: connection, logger: logger)
        let request = try await ChangeRequestStore.read(rollout.project, id, on: connection, logger: logger)
        try await AuditLog.append(
            on: connection, project: rollout.project, actor: actor, action: "changeRequest.create",
            detail: [
                "changeRequest": ChangeRequest.name(id), "baseVersionNumber": String(base),
                "state": request.state.rawValue, "rollout": Rollout.name(rollout.id), "percent": first,
            ], logger: logger)
        try await WebhookEvents.changeRequest(
            "opened", request, comment: nil, actor: actor, on: connection, logger: logger)
    }

    /// The proposed rollout change request `id` carries, with its first step over version `latest`; nil when it
    /// carries none.
    static func carried(
        by id: Int64, project: String, latest: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws -> CarriedRollout? {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: columns) FROM rollouts r
            WHERE r.project_id = \(project) AND r.change_request = \(id) AND r.state = 'PROPOSED'
            FOR UPDATE
            """, logger: logger)
        guard let rollout = try await decode(rows).first else { return nil }
        do {
            let json = try await template(
                of: rollout, at: 0, latest: latest, project: project, on: connection, logger: logger)
            return CarriedRollout(rollout: rollout, templateJSON: json)
        } catch RolloutError.parameterNotFound(let parameter) {
            // Someone removed the parameter since the plan was proposed: nothing the change request can start.
            throw StoreError.notFound(
                "parameter \(parameter) of \(Rollout.name(rollout.id))",
                field: StoreErrorField(name: "parameter", reason: "PARAMETER_NOT_FOUND"))
        }
    }

    /// Closes the change request of a proposed rollout that is halted before it started.
    static func withdrawProposal(
        _ rollout: Rollout, actor: AuditActor, on connection: PostgresConnection, logger: Logger
    ) async throws {
        guard let id = rollout.changeRequest else { return }
        try await connection.query(
            """
            UPDATE change_requests SET state = 'CANCELLED', closed_by_key = \(actor.keyId),
                closed_by_name = \(actor.displayName), closed_at = now(),
                close_comment = \("\(Rollout.name(rollout.id)) was halted"), updated_at = now()
            WHERE request_id = \(id) AND state IN ('OPEN', 'APPROVED', 'SCHEDULED')
            """, logger: logger)
    }

    /// Halts the proposed rollout that change request `id` carried, now that it was rejected or cancelled.
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
    }
}
