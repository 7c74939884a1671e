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
        return try await decode(rows, on: connection, logger: logger).first
    }

    static let columns = """
        r.rollout_id, r.project_id, r.parameter, r.value, r.audience, r.steps::text, r.description, r.state, \
        r.current_step, r.next_step_at, r.pause_reason, r.author_key, r.author_name, r.change_request, \
        r.end_version, r.ended_at, r.created_at, r.updated_at
        """

    /// Decodes rollouts and reads their published steps (one more query for all of them).
    static func decode(_ rows: PostgresRowSequence, on connection: PostgresConnection, logger: Logger) async throws
        -> [Rollout]
    {
        typealias Row = (
            Int64, String, String, String, String?, String, String, String, Int32, Date?, String?, String?, String,
            Int64?, Int64?, Date?, Date, Date
        )
        var read: [Row] = []
        for try await row in rows.decode(Row.self) { read.append(row) }
        guard !read.isEmpty else { return [] }
        let ids = read.map(\.0)
        var history: [Int64: [Rollout.PublishedStep]] = [:]
        let stepRows = try await connection.query(
            """
            SELECT rollout_id, step, percent, version_number, published_at FROM rollout_steps
            WHERE rollout_id = ANY(\(ids)) ORDER BY rollout_id, step
            """, logger: logger)
        for try await (id, step, percent, version, time) in stepRows.decode((Int64, Int32, Double, Int64, Date).self) {
            history[id, default: []].append(
                Rollout.PublishedStep(step: Int(step), percent: percent, versionNumber: version, time: time))
        }
        let decoder = JSONDecoder()
        return try read.map { row in
            Rollout(
                id: row.0, project: row.1, parameter: row.2, value: row.3, audience: row.4,
                steps: try decoder.decode([Rollout.Step].self, from: Data(row.5.utf8)), description: row.6,
                state: Rollout.State(rawValue: row.7) ?? .paused, currentStep: Int(row.8), nextStepTime: row.9,
                pauseReason: row.10.flatMap(Rollout.PauseReason.init(rawValue:)),
                author: AuditActor(keyId: row.11, displayName: row.12), changeRequest: row.13, endVersion: row.14,
                endTime: row.15, createTime: row.16, updateTime: row.17, history: history[row.0] ?? [])
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
