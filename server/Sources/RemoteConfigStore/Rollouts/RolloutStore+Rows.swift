import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

extension RolloutStore {
    /// The rollout, or `StoreError.notFound`.
    static func read(_ project: String, _ id: Int64, on connection: PostgresConnection, logger: Logger) async throws
        -> Rollout
    {
        guard let rollout = try await find(project, id, on: connection, logger: logger) else {
            throw StoreError.notFound("\(Rollout.name(id)) of \(project)")
        }
        return rollout
    }

    static func find(_ project: String, _ id: Int64, on connection: PostgresConnection, logger: Logger) async throws
        -> Rollout?
    {
        let rows = try await connection.query(
            "SELECT \(unescaped: columns) FROM rollouts r WHERE r.project_id = \(project) AND r.rollout_id = \(id)",
            logger: logger)
        return try await decode(rows).first
    }

    static let columns = """
        r.rollout_id, r.project_id, r.parameter, r.value, r.audience, r.steps::text, r.description, r.state, \
        r.current_step, r.next_step_at, r.pause_reason, r.author_key, r.author_name, r.change_request, \
        r.end_version, r.ended_at, r.created_at, r.updated_at, \
        ARRAY(SELECT s.step FROM rollout_steps s WHERE s.rollout_id = r.rollout_id ORDER BY s.step), \
        ARRAY(SELECT s.percent FROM rollout_steps s WHERE s.rollout_id = r.rollout_id ORDER BY s.step), \
        ARRAY(SELECT s.version_number FROM rollout_steps s WHERE s.rollout_id = r.rollout_id ORDER BY s.step), \
        ARRAY(SELECT s.published_at FROM rollout_steps s WHERE s.rollout_id = r.rollout_id ORDER BY s.step), \
        r.author_user, r.author_email, r.completion_request
        """

    /// Decodes rollouts with their published steps. The steps come in the same statement as the row (`columns`),
    /// so both are one snapshot: read by a second query, a step committed in between showed in `history` while
    /// `currentStep` still named the step before it.
    static func decode(_ rows: PostgresRowSequence) async throws -> [Rollout] {
        typealias Row = (
            Int64, String, String, String, String?, String, String, String, Int32, Date?, String?, String?, String,
            Int64?, Int64?, Date?, Date, Date, [Int32], [Double], [Int64], [Date], String?, String?, Int64?
        )
        var read: [Row] = []
        for try await row in rows.decode(Row.self) { read.append(row) }
        let decoder = JSONDecoder()
        return try read.map { row in
            Rollout(
                id: row.0, project: row.1, parameter: row.2, value: row.3, audience: row.4,
                steps: try decoder.decode([Rollout.Step].self, from: Data(row.5.utf8)), description: row.6,
                state: Rollout.State(rawValue: row.7) ?? .paused, currentStep: Int(row.8), nextStepTime: row.9,
                pauseReason: row.10.flatMap(Rollout.PauseReason.init(rawValue:)),
                author: AuditActor(keyId: row.11, displayName: row.12, userId: row.22, email: row.23),
                changeRequest: row.13, completionRequest: row.24, endVersion: row.14,
                endTime: row.15, createTime: row.16, updateTime: row.17,
                history: row.18.indices.map { index in
                    Rollout.PublishedStep(
                        step: Int(row.18[index]), percent: row.19[index], versionNumber: row.20[index],
                        time: row.21[index])
                })
        }
    }

    /// The template of `project`'s version `latest` (the empty template before the first publish).
    static func latestTemplate(_ project: String, _ latest: Int64, on connection: PostgresConnection, logger: Logger)
        async throws -> RemoteConfigTemplate
    {
        guard latest > 0 else { return RemoteConfigTemplate() }
        let rows = try await connection.query(
            """
            SELECT template::text FROM template_versions WHERE project_id = \(project) AND version_number = \(latest)
            """, logger: logger)
        for try await json in rows.decode(String.self) {
            return try RemoteConfigTemplate(json: Array(json.utf8))
        }
        throw StoreError.notFound("version \(latest) of \(project)")
    }

    /// The JSON text to store for `template`, once it passes every rule a publish checks.
    static func prepared(_ template: RemoteConfigTemplate) throws -> String {
        do {
            return try PreparedTemplate(template).storedJSON
        } catch {
            switch error {
            case .invalid(let issues): throw RolloutError.invalidTemplate(issues)
            case .decoding(let failure):
                throw RolloutError.invalidTemplate([
                    ValidationIssue(field: failure.field, reason: "INVALID_TEMPLATE", message: failure.message)
                ])
            }
        }
    }
}
