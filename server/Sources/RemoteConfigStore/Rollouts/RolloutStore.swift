import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

/// Rollouts in PostgreSQL. Every action locks the project row first, as every publish does, so a rollout's
/// steps, its halt and anyone's publish of the project happen one after another: a step is published once, and
/// never over a halt.
public struct RolloutStore: Sendable {
    let database: Database
    /// Where new rollouts' ids (and so their condition names) come from.
    let ids: RolloutIDs

    public init(database: Database, ids: RolloutIDs = .random) {
        self.database = database
        self.ids = ids
    }

    /// Creates a rollout of `plan` and starts it: publishes its first step through the one publish path
    /// (`updateOrigin: ROLLOUT`), or, while the project requires approval, opens a change request carrying it
    /// (`PROPOSED`). Audited as `rollout.create`; `rollout.started` goes to webhooks when it starts. Everything
    /// that can refuse it is checked before anything is stored.
    public func create(_ project: String, _ plan: RolloutPlan, actor: AuditActor) async throws -> CreatedRollout {
        let token = HaltToken.generate()
        return try await database.transaction { connection in
            let logger = database.logger
            let lock = try await TemplateStore.lockProjectState(project, on: connection, logger: logger)
            let busy = try await connection.query(
                """
                SELECT rollout_id FROM rollouts
                WHERE project_id = \(project) AND parameter = \(plan.parameter)
                  AND state IN ('PROPOSED', 'RUNNING', 'PAUSED')
                """, logger: logger)
            for try await other in busy.decode(Int64.self) {
                throw RolloutError.parameterBusy(parameter: plan.parameter, rollout: other)
            }
            let published = try await Self.latestTemplate(project, lock.latestVersion, on: connection, logger: logger)
            let id = try await freeID(on: connection, logger: logger)
            let name = RolloutTemplate.conditionName(id: id)
            // Only someone who guessed the id could have put it there; the rollout would adopt it and its values.
            if RolloutConditions.names(in: published).contains(name) { throw RolloutError.conditionExists(name) }
            let start = try Self.firstStep(plan, conditionName: name, over: published)
            let steps = String(decoding: try JSONEncoder().encode(plan.steps), as: UTF8.self)
            try await connection.query(
                """
                INSERT INTO rollouts (rollout_id, project_id, parameter, value, audience, steps, description, state,
                    halt_token_hash, author_key, author_name, author_user, author_email)
                VALUES (\(id), \(project), \(plan.parameter), \(plan.value), \(plan.audience), \(steps)::json,
                    \(plan.description), 'PROPOSED', \(KeySecret.hash(token)), \(actor.keyId), \(actor.displayName),
                    \(actor.userId), \(actor.email))
                """, logger: logger)
            let proposed = try await Self.read(project, id, on: connection, logger: logger)
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "rollout.create",
                detail: [
                    "rollout": Rollout.name(id), "parameter": plan.parameter,
                    "state": lock.requireApproval ? "PROPOSED" : "RUNNING",
                ], logger: logger)
            if lock.requireApproval {
                try await Self.propose(
                    proposed, templateJSON: start, base: lock.latestVersion, actor: actor, on: connection,
                    logger: logger)
                return CreatedRollout(
                    rollout: try await Self.read(project, id, on: connection, logger: logger), haltToken: token,
                    version: nil)
            }
            let version = try await Self.publishStep(
                proposed, step: 0, templateJSON: start, actor: actor, on: connection, logger: logger)
            return CreatedRollout(
                rollout: try await Self.read(project, id, on: connection, logger: logger), haltToken: token,
                version: version)
        }
    }

    /// One rollout of `project`, or nil.
    public func get(_ project: String, _ id: Int64) async throws -> Rollout? {
        try await database.run { client in
            try await client.withConnection { connection in
                try await Self.find(project, id, on: connection, logger: database.logger)
            }
        }
    }

    /// One page of at most `limit` rollouts of `project`, newest first (ids are random: by creation time, then
    /// id), in `state` when given, and after rollout `before` when given (the page token: the last of the page
    /// before, which is the token this page gives).
    public func list(_ project: String, state: Rollout.State?, before: Int64? = nil, limit: Int) async throws
        -> Page<Rollout>
    {
        try await Page.read(size: limit, token: \.id) { limit in
            try await database.run { client in
                try await client.withConnection { connection in
                    let rows = try await connection.query(
                        """
                        SELECT \(unescaped: Self.columns) FROM rollouts r
                        WHERE r.project_id = \(project)
                          AND (\(state?.rawValue)::text IS NULL OR r.state = \(state?.rawValue))
                          AND (\(before)::bigint IS NULL OR (r.created_at, r.rollout_id) < (
                              SELECT b.created_at, b.rollout_id FROM rollouts b
                              WHERE b.project_id = \(project) AND b.rollout_id = \(before)))
                        ORDER BY r.created_at DESC, r.rollout_id DESC LIMIT \(limit)
                        """, logger: database.logger)
                    return try await Self.decode(rows)
                }
            }
        }
    }

    /// Stops the clock: no further step until resumed. Pausing a paused rollout changes nothing.
    public func pause(_ project: String, _ id: Int64, actor: AuditActor) async throws -> RolloutChange {
        try await act(project, id, action: "pause") { rollout, _, connection, logger in
            switch rollout.state {
            case .paused: return nil
            case .running: break
            default: throw RolloutError.wrongState(id: id, state: rollout.state, action: "pause")
            }
            try await Self.markPaused(id, reason: .manual, on: connection, logger: logger)
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "rollout.pause",
                detail: ["rollout": Rollout.name(id), "reason": "MANUAL"], logger: logger)
            return nil
        }
    }

    /// Starts the clock again with what was left of the step's hold. When the rollout's condition or value is
    /// no longer what its current step published (someone edited it), the step is published again first.
    /// Resuming a running rollout changes nothing.
    public func resume(_ project: String, _ id: Int64, actor: AuditActor) async throws -> RolloutChange {
        try await act(project, id, action: "resume") { rollout, lock, connection, logger in
            switch rollout.state {
            case .running: return nil
            case .paused: break
            default: throw RolloutError.wrongState(id: id, state: rollout.state, action: "resume")
            }
            var version: StoredVersion?
            let step = max(rollout.currentStep, 0)
            let latest = try await Self.latestTemplate(project, lock.latestVersion, on: connection, logger: logger)
            guard let wanted = rollout.template.applying(percent: rollout.steps[step].percent, to: latest) else {
                throw RolloutError.parameterNotFound(rollout.parameter)
            }
            if wanted != latest {
                let json = try Self.prepared(wanted)
                version = try await Self.publish(
                    rollout, templateJSON: json, description: "\(Rollout.name(id)): step \(step + 1) again",
                    actor: actor, on: connection, logger: logger)
            }
            try await connection.query(
                """
                UPDATE rollouts SET state = 'RUNNING', pause_reason = NULL,
                    next_step_at = CASE WHEN current_step + 1 < json_array_length(steps)
                                        THEN now() + coalesce(hold_remaining, interval '0') END,
                    hold_remaining = NULL, updated_at = now()
                WHERE rollout_id = \(id)
                """, logger: logger)
            try await StoreEvent.scheduled(project: project).notify(on: connection, logger: logger)
            var detail = ["rollout": Rollout.name(id)]
            if let version { detail["versionNumber"] = String(version.versionNumber) }
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "rollout.resume", detail: detail,
                logger: logger)
            return version
        }
    }

    /// Halts it for good: publishes the template without the rollout's condition and conditional value, so
    /// every app gets the value it had before. Halting a halted rollout publishes nothing. Needs no approval.
    public func halt(_ project: String, _ id: Int64, actor: AuditActor) async throws -> RolloutChange {
        try await act(project, id, action: "halt") { rollout, lock, connection, logger in
            try await Self.halt(rollout, lock: lock, actor: actor, on: connection, logger: logger)
        }
    }

    /// Halts rollout `id` for the holder of its halt token (an alert hook): `RolloutError.badHaltToken` unless
    /// the token is this rollout's. The token is checked before anything is locked.
    public func halt(_ id: Int64, token: String) async throws -> RolloutChange {
        let project = try await database.run { client in
            let rows = try await client.query(
                "SELECT project_id FROM rollouts WHERE rollout_id = \(id) AND halt_token_hash = \(KeySecret.hash(token))"
            )
            for try await project in rows.decode(String.self) { return project }
            throw RolloutError.badHaltToken
        }
        let actor = AuditActor(keyId: nil, displayName: "halt token of \(Rollout.name(id))")
        return try await halt(project, id, actor: actor)
    }

    /// Completes it: publishes the value as the parameter's default and removes the rollout's condition. While
    /// the project requires approval, completing is a change like any other: it opens a change request that
    /// carries the completion (the rollout completes when that is published) and publishes nothing; asking again
    /// while that request is open opens no other.
    public func complete(_ project: String, _ id: Int64, actor: AuditActor) async throws -> RolloutChange {
        try await act(project, id, action: "complete") { rollout, lock, connection, logger in
            guard rollout.state == .running || rollout.state == .paused else {
                throw RolloutError.wrongState(id: id, state: rollout.state, action: "complete")
            }
            let latest = try await Self.latestTemplate(project, lock.latestVersion, on: connection, logger: logger)
            guard let done = rollout.template.completing(latest) else {
                throw RolloutError.parameterNotFound(rollout.parameter)
            }
            let json = try Self.prepared(done)
            if lock.requireApproval {
                if rollout.completionRequest == nil {
                    try await Self.proposeCompletion(
                        rollout, templateJSON: json, base: lock.latestVersion, actor: actor, on: connection,
                        logger: logger)
                }
                return nil
            }
            let version = try await Self.publish(
                rollout, templateJSON: json, description: "\(Rollout.name(id)): completed",
                actor: actor, on: connection, logger: logger)
            try await Self.end(
                rollout, as: .completed, version: version.versionNumber, actor: actor, on: connection, logger: logger)
            return version
        }
    }

    /// Runs one action on a rollout under its project's lock and answers the rollout as it is afterwards.
    private func act(
        _ project: String, _ id: Int64, action: String,
        _ body:
            @escaping @Sendable (Rollout, TemplateStore.ProjectLock, PostgresConnection, Logger) async throws ->
            StoredVersion?
    ) async throws -> RolloutChange {
        try await database.transaction { connection in
            let logger = database.logger
            let lock = try await TemplateStore.lockProjectState(project, on: connection, logger: logger)
            let rollout = try await Self.read(project, id, on: connection, logger: logger)
            let version = try await body(rollout, lock, connection, logger)
            return RolloutChange(
                rollout: try await Self.read(project, id, on: connection, logger: logger), version: version)
        }
    }
}
