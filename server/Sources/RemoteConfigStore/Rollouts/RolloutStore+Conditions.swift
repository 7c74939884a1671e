import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

extension RolloutStore {
    /// `templateJSON` as a write of `project` over version `latest` may store it (`RolloutConditions`): the
    /// conditions of its halted and completed rollouts dropped (the JSON is then written anew), or
    /// `TemplateStoreError.invalid` for a value on another rollout's condition, or a proposed rollout's
    /// condition. `rollout` is the rollout the write is a step, start, halt or completion of, whose condition
    /// it may carry whatever its state. Runs in the caller's transaction, which holds the project's lock.
    static func guarded(
        _ templateJSON: String, project: String, latest: Int64, publishing rollout: Int64?,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> String {
        // Stored JSON is written by the server, which escapes no letter, so a template without this text (and
        // without escapes at all) names no rollout's condition: no decoding on the path of most publishes.
        guard templateJSON.contains(RolloutConditions.prefix) || templateJSON.contains("\\u") else {
            return templateJSON
        }
        let template = try RemoteConfigTemplate(json: Array(templateJSON.utf8))
        let names = RolloutConditions.names(in: template)
        guard !names.isEmpty else { return templateJSON }
        let owners = try await conditions(
            of: project, among: names, publishing: rollout, on: connection, logger: logger)
        var outcome = owners.check(template, over: nil)
        if !outcome.issues.isEmpty {
            // Only now is the published template read: what it already has may stay.
            let published = try await latestTemplate(project, latest, on: connection, logger: logger)
            outcome = owners.check(template, over: published)
            guard outcome.issues.isEmpty else { throw TemplateStoreError.invalid(outcome.issues) }
        }
        guard outcome.template != template else { return templateJSON }
        var kept = outcome.template
        kept.version = nil
        return kept.jsonValue.jsonString
    }

    /// The rollouts of `project` whose conditions are among `names`: live (running, paused, or `rollout`),
    /// proposed (only its own change request publishes its condition, as `rollout`), or ended (halted,
    /// completed).
    static func conditions(
        of project: String, among names: Set<String>, publishing rollout: Int64?, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> RolloutConditions {
        let ids = names.compactMap(RolloutConditions.id(of:))
        guard !ids.isEmpty else { return RolloutConditions() }
        let rows = try await connection.query(
            """
            SELECT rollout_id, parameter, state FROM rollouts
            WHERE project_id = \(project) AND rollout_id = ANY(\(ids))
            """, logger: logger)
        var owners = RolloutConditions()
        for try await (id, parameter, state) in rows.decode((Int64, String, String).self) {
            let name = RolloutTemplate.conditionName(id: id)
            switch Rollout.State(rawValue: state) {
            case _ where id == rollout: owners.live[name] = parameter
            case .running, .paused: owners.live[name] = parameter
            case .proposed: owners.proposed[name] = parameter
            case .halted, .completed: owners.ended.insert(name)
            case nil: break
            }
        }
        return owners
    }

    /// The JSON of `plan`'s first step over `template` with the condition `conditionName`, checked as its
    /// publish will check it, before the rollout is stored (so a refusal leaves nothing behind); every problem is
    /// told as one of `value` or `audience` where it is theirs.
    static func firstStep(_ plan: RolloutPlan, conditionName: String, over template: RemoteConfigTemplate) throws
        -> String
    {
        let rollout = RolloutTemplate(
            parameter: plan.parameter, value: plan.value, audience: plan.audience, conditionName: conditionName)
        guard let first = rollout.applying(percent: plan.steps[0].percent, to: template) else {
            throw RolloutError.parameterNotFound(plan.parameter)
        }
        do {
            return try PreparedTemplate(first).storedJSON
        } catch {
            switch error {
            case .invalid(let issues): throw RolloutError.invalidTemplate(rollout.attributing(issues))
            case .decoding(let failure):
                throw RolloutError.invalidTemplate([
                    ValidationIssue(field: failure.field, reason: "INVALID_TEMPLATE", message: failure.message)
                ])
            }
        }
    }

    /// An id for a new rollout that no rollout has, drawn from `ids`.
    func freeID(on connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        for _ in 0..<8 {
            let id = ids.draw()
            let rows = try await connection.query(
                "SELECT 1 FROM rollouts WHERE rollout_id = \(id)", logger: logger)
            var taken = false
            for try await _ in rows { taken = true }
            if !taken { return id }
        }
        throw StoreError.alreadyExists("a free rollout id")
    }
}
