import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

extension RolloutStore {
    /// Publishes every step whose time has come (by the database's clock, which every replica shares), each in
    /// its own transaction, and returns them. Safe on every replica at once: a step is published under its
    /// project's row lock, taken with `SKIP LOCKED` (a replica that finds it held leaves the project to the
    /// holder and its own next round), and only while the rollout is still `RUNNING` on the step before, so each
    /// step is published exactly once (the primary key of `rollout_steps` says so too). The actor is the author.
    public func publishDue(limit: Int = 20) async throws -> [RolloutChange] {
        try await DueWork.run(
            database,
            due: """
                SELECT rollout_id, project_id FROM rollouts
                WHERE state = 'RUNNING' AND next_step_at <= now() ORDER BY next_step_at, rollout_id LIMIT \(limit)
                """,
            stillDue: { id in
                """
                SELECT rollout_id FROM rollouts
                WHERE rollout_id = \(id) AND state = 'RUNNING' AND next_step_at <= now() FOR UPDATE
                """
            },
            work: { id, project, lock, connection, logger -> RolloutChange? in
                let rollout = try await Self.read(project, id, on: connection, logger: logger)
                let step = rollout.currentStep + 1
                guard step < rollout.steps.count else {
                    try await connection.query(
                        "UPDATE rollouts SET next_step_at = NULL WHERE rollout_id = \(id)", logger: logger)
                    return nil
                }
                let json: String
                do {
                    json = try await Self.template(
                        of: rollout, at: step, latest: lock.latestVersion, project: project, on: connection,
                        logger: logger)
                } catch let error as RolloutError {
                    // Nothing was written yet: stop here rather than retry a step that cannot be published.
                    try await Self.markPaused(id, reason: .stepFailed, on: connection, logger: logger)
                    try await AuditLog.append(
                        on: connection, project: project, actor: rollout.author, action: "rollout.pause",
                        detail: ["rollout": Rollout.name(id), "reason": "STEP_FAILED", "error": "\(error)"],
                        logger: logger)
                    return RolloutChange(
                        rollout: try await Self.read(project, id, on: connection, logger: logger), version: nil)
                }
                let version = try await Self.publishStep(
                    rollout, step: step, templateJSON: json, actor: rollout.author, on: connection, logger: logger)
                return RolloutChange(
                    rollout: try await Self.read(project, id, on: connection, logger: logger), version: version)
            })
    }

    /// How long until the next step is due by the database's clock (zero or less: due now); nil when none waits.
    public func nextDue() async throws -> Duration? {
        try await DueWork.nextDue(
            database,
            "SELECT EXTRACT(EPOCH FROM min(next_step_at) - now())::float8 FROM rollouts WHERE state = 'RUNNING'")
    }

    /// The JSON text of the published template with `rollout` at step `step`, validated as a publish would.
    static func template(
        of rollout: Rollout, at step: Int, latest: Int64, project: String, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> String {
        let template = try await latestTemplate(project, latest, on: connection, logger: logger)
        guard let stepped = rollout.template.applying(percent: rollout.steps[step].percent, to: template) else {
            throw RolloutError.parameterNotFound(rollout.parameter)
        }
        return try prepared(stepped)
    }

    /// Publishes `templateJSON` as the rollout's own version (`updateOrigin: ROLLOUT`), through the one publish
    /// path; it passes a project that requires approval, since the plan was approved (or needed none).
    static func publish(
        _ rollout: Rollout, templateJSON: String, description: String, actor: AuditActor,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> StoredVersion {
        try await TemplateStore.publish(
            rollout.project,
            PublishRequest(
                templateJSON: templateJSON, expectedVersion: nil, updateType: .incrementalUpdate,
                updateUser: actor.updateUser, updateOrigin: .rollout, description: description, rollout: rollout.id),
            actor: actor, on: connection, logger: logger)
    }

    /// Publishes step `step` and records it.
    static func publishStep(
        _ rollout: Rollout, step: Int, templateJSON: String, actor: AuditActor, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> StoredVersion {
        let percent = RolloutTemplate.format(percent: rollout.steps[step].percent)
        let version = try await publish(
            rollout, templateJSON: templateJSON,
            description: "\(Rollout.name(rollout.id)): step \(step + 1) of \(rollout.steps.count), \(percent)%",
            actor: actor, on: connection, logger: logger)
        try await recordStep(rollout, step: step, version: version, actor: actor, on: connection, logger: logger)
        return version
    }

    /// Records step `step` as published in `version`, and when the next one is due.
    static func recordStep(
        _ rollout: Rollout, step: Int, version: StoredVersion, actor: AuditActor, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let percent = rollout.steps[step].percent
        try await connection.query(
            """
            INSERT INTO rollout_steps (rollout_id, step, percent, project_id, version_number)
            VALUES (\(rollout.id), \(Int32(step)), \(percent), \(rollout.project), \(version.versionNumber))
            """, logger: logger)
        let isLast = step + 1 >= rollout.steps.count
        let hold = Double(rollout.steps[step].holdSeconds ?? 0)
        try await connection.query(
            """
            UPDATE rollouts SET state = 'RUNNING', current_step = \(Int32(step)), pause_reason = NULL,
                hold_remaining = NULL, updated_at = now(),
                next_step_at = CASE WHEN \(isLast) THEN NULL ELSE now() + make_interval(secs => \(hold)) END
            WHERE rollout_id = \(rollout.id)
            """, logger: logger)
        // Every replica's scheduler learns of the next step's time now, not at its next poll.
        if !isLast { try await StoreEvent.scheduled(project: rollout.project).notify(on: connection, logger: logger) }
        try await AuditLog.append(
            on: connection, project: rollout.project, actor: actor, action: "rollout.step",
            detail: [
                "rollout": Rollout.name(rollout.id), "step": String(step),
                "percent": RolloutTemplate.format(percent: percent), "versionNumber": String(version.versionNumber),
            ], logger: logger)
        if step == 0 {
            try await WebhookEvents.rollout(
                .rolloutStarted, try await read(rollout.project, rollout.id, on: connection, logger: logger),
                version: version.versionNumber, actor: actor, on: connection, logger: logger)
        }
    }

    /// Pauses a running or paused rollout for `reason`, keeping what was left of the step's hold.
    static func markPaused(_ id: Int64, reason: Rollout.PauseReason, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        try await connection.query(
            """
            UPDATE rollouts SET state = 'PAUSED', pause_reason = \(reason.rawValue), updated_at = now(),
                hold_remaining = CASE WHEN state = 'RUNNING' AND next_step_at IS NOT NULL
                                      THEN greatest(next_step_at - now(), interval '0') ELSE hold_remaining END,
                next_step_at = NULL
            WHERE rollout_id = \(id)
            """, logger: logger)
    }

    /// Halts `rollout` inside the caller's transaction holding `lock`; nil when nothing was published (its
    /// condition and values were gone, or it was halted already and they still are).
    static func halt(
        _ rollout: Rollout, lock: TemplateStore.ProjectLock, actor: AuditActor, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> StoredVersion? {
        switch rollout.state {
        case .halted:
            return try await haltAgain(rollout, lock: lock, actor: actor, on: connection, logger: logger)
        case .completed:
            throw RolloutError.wrongState(id: rollout.id, state: rollout.state, action: "halt")
        case .proposed:
            try await end(rollout, as: .halted, version: nil, actor: actor, on: connection, logger: logger)
            return nil
        case .running, .paused:
            let latest = try await latestTemplate(rollout.project, lock.latestVersion, on: connection, logger: logger)
            let without = rollout.template.removing(from: latest)
            var version: StoredVersion?
            if without != latest {
                version = try await publish(
                    rollout, templateJSON: try prepared(without), description: "\(Rollout.name(rollout.id)): halted",
                    actor: actor, on: connection, logger: logger)
            }
            try await end(
                rollout, as: .halted, version: version?.versionNumber ?? lock.latestVersion, actor: actor,
                on: connection, logger: logger)
            return version
        }
    }

    /// Publishes the template without a halted rollout's condition when the published template has it again
    /// (only a server from before every publish dropped ended rollouts' conditions let that happen), so a halt
    /// always halts; nil, publishing nothing, when it is gone.
    static func haltAgain(
        _ rollout: Rollout, lock: TemplateStore.ProjectLock, actor: AuditActor, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> StoredVersion? {
        let latest = try await latestTemplate(rollout.project, lock.latestVersion, on: connection, logger: logger)
        let without = rollout.template.removing(from: latest)
        guard without != latest else { return nil }
        let version = try await publish(
            rollout, templateJSON: try prepared(without), description: "\(Rollout.name(rollout.id)): halted again",
            actor: actor, on: connection, logger: logger)
        try await connection.query(
            """
            UPDATE rollouts SET end_version = \(version.versionNumber), updated_at = now()
            WHERE rollout_id = \(rollout.id)
            """, logger: logger)
        try await AuditLog.append(
            on: connection, project: rollout.project, actor: actor, action: "rollout.halt",
            detail: [
                "rollout": Rollout.name(rollout.id), "parameter": rollout.parameter,
                "versionNumber": String(version.versionNumber), "again": "true",
            ], logger: logger)
        return version
    }

    /// Ends `rollout` as halted or completed by `version`, and cancels the change requests still open for it
    /// (its plan, its completion) but `keeping`, the one whose publish ends it; audited, and sent to webhooks.
    static func end(
        _ rollout: Rollout, as state: Rollout.State, version: Int64?, actor: AuditActor, keeping: Int64? = nil,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        let endVersion = version.flatMap { $0 > 0 ? $0 : nil }
        try await connection.query(
            """
            UPDATE rollouts SET state = \(state.rawValue), end_version = \(endVersion), ended_at = now(),
                next_step_at = NULL, pause_reason = NULL, hold_remaining = NULL, updated_at = now()
            WHERE rollout_id = \(rollout.id)
            """, logger: logger)
        try await withdrawRequests(rollout, as: state, keeping: keeping, actor: actor, on: connection, logger: logger)
        var detail = ["rollout": Rollout.name(rollout.id), "parameter": rollout.parameter]
        if let endVersion { detail["versionNumber"] = String(endVersion) }
        try await AuditLog.append(
            on: connection, project: rollout.project, actor: actor,
            action: state == .halted ? "rollout.halt" : "rollout.complete", detail: detail, logger: logger)
        try await WebhookEvents.rollout(
            state == .halted ? .rolloutHalted : .rolloutCompleted,
            try await read(rollout.project, rollout.id, on: connection, logger: logger), version: endVersion,
            actor: actor, on: connection, logger: logger)
    }

    /// Pauses, with `"pauseReason": "EDITED"`, every live rollout of `project` whose parameter or condition the
    /// publish of `stored` over version `previous` changed, unless that publish was the rollout's own (`by`).
    /// Runs inside the publish's transaction, so an edit and the pause it causes commit together.
    static func noticePublish(
        _ stored: StoredVersion, previous: Int64, by rolloutId: Int64?, actor: AuditActor,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        let project = stored.project
        let rows = try await connection.query(
            """
            SELECT \(unescaped: columns) FROM rollouts r
            WHERE r.project_id = \(project) AND r.state IN ('RUNNING', 'PAUSED')
              AND r.rollout_id <> \(rolloutId ?? -1)
            """, logger: logger)
        let live = try await decode(rows)
        guard !live.isEmpty else { return }
        let before = try await latestTemplate(project, previous, on: connection, logger: logger)
        let after = try RemoteConfigTemplate(json: Array(stored.templateJSON.utf8))
        for rollout in live where rollout.template.isEdited(from: before, to: after) {
            guard rollout.state == .running || rollout.pauseReason != .edited else { continue }
            try await markPaused(rollout.id, reason: .edited, on: connection, logger: logger)
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "rollout.pause",
                detail: [
                    "rollout": Rollout.name(rollout.id), "reason": "EDITED",
                    "versionNumber": String(stored.versionNumber),
                ], logger: logger)
        }
    }
}
