import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

/// Minimum-version policies in PostgreSQL, and the claims that let exactly one replica check a policy at a time.
/// A check's raise is written in one transaction with the proof that its claim still holds the policy, so two
/// replicas never raise twice.
public struct MinimumVersionPolicyStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// The policy of `project`, or nil when none was ever set.
    public func get(_ project: String) async throws -> MinimumVersionPolicy? {
        try await database.run { client in
            let rows = try await client.query(
                "SELECT \(unescaped: Self.columns) FROM minimum_version_policies WHERE project_id = \(project)")
            return try await Self.decode(rows).first
        }
    }

    /// Creates or replaces the policy's settings, audited, when its revision is still `expectedRevision` (0: no
    /// policy yet; nil: whatever is there), else `StaleRevision`. The last check is kept; the next one is due at
    /// once, so new limits are tried without waiting for the old interval.
    public func save(
        _ project: String, _ settings: MinimumVersionPolicySettings, expectedRevision: Int64? = nil,
        actor: AuditActor
    ) async throws -> MinimumVersionPolicy {
        try await database.transaction { connection in
            let logger = database.logger
            _ = try await TemplateStore.lockProject(project, on: connection, logger: logger)
            if let expectedRevision {
                var current: Int64 = 0
                let rows = try await connection.query(
                    "SELECT revision FROM minimum_version_policies WHERE project_id = \(project)", logger: logger)
                for try await revision in rows.decode(Int64.self) { current = revision }
                if current != expectedRevision { throw StaleRevision("minimum version policy", current: current) }
            }
            let rows = try await connection.query(
                """
                INSERT INTO minimum_version_policies AS p (project_id, enabled, platform, parameter, condition,
                    max_blocked_share, min_active_instances, never_above, keep_behind_latest,
                    check_interval_seconds, action)
                VALUES (\(project), \(settings.enabled), \(settings.platform), \(settings.parameter),
                    \(settings.condition), \(settings.maxBlockedShare), \(settings.minActiveInstances),
                    \(settings.neverAbove), \(settings.keepBehindLatest), \(settings.checkIntervalSeconds),
                    \(settings.action.rawValue))
                ON CONFLICT (project_id) DO UPDATE SET enabled = EXCLUDED.enabled, platform = EXCLUDED.platform,
                    parameter = EXCLUDED.parameter, condition = EXCLUDED.condition,
                    max_blocked_share = EXCLUDED.max_blocked_share,
                    min_active_instances = EXCLUDED.min_active_instances, never_above = EXCLUDED.never_above,
                    keep_behind_latest = EXCLUDED.keep_behind_latest,
                    check_interval_seconds = EXCLUDED.check_interval_seconds, action = EXCLUDED.action,
                    updated_at = now(), next_check_at = now(), revision = nextval('settings_revisions')
                RETURNING \(unescaped: Self.columns)
                """, logger: logger)
            guard let saved = try await Self.decode(rows).first else {
                throw StoreError.notFound("minimum version policy")
            }
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "minimumVersionPolicy.update",
                detail: Self.detail(settings), logger: logger)
            return saved
        }
    }

    /// Claims one enabled policy that is due and that no check holds, for `lease`; nil when there is none.
    /// Replicas asking at once get different policies (`FOR UPDATE SKIP LOCKED`).
    public func claimDue(lease: Duration) async throws -> MinimumVersionPolicyClaim? {
        let granted = Lease(lasting: lease)
        return try await database.run { client in
            let rows = try await client.query(
                """
                UPDATE minimum_version_policies SET claim_token = \(granted.token),
                    claimed_until = clock_timestamp() + make_interval(secs => \(granted.seconds))
                WHERE project_id = (
                    SELECT project_id FROM minimum_version_policies
                    WHERE enabled AND next_check_at <= now()
                        AND (claimed_until IS NULL OR claimed_until < clock_timestamp())
                    ORDER BY next_check_at LIMIT 1 FOR UPDATE SKIP LOCKED)
                RETURNING \(unescaped: Self.columns)
                """)
            return try await Self.decode(rows).first.map { MinimumVersionPolicyClaim(policy: $0, lease: granted) }
        }
    }

    /// Records a check that changed nothing and lets go of the policy; it is due again after its interval.
    /// `LeaseLost` when the claim no longer holds it.
    @discardableResult
    public func finish(_ claim: MinimumVersionPolicyClaim, _ outcome: MinimumVersionPolicyOutcome) async throws
        -> MinimumVersionPolicy
    {
        try await database.transaction { connection in
            try await Self.finish(claim, outcome, openedRequest: nil, on: connection, logger: database.logger)
        }
    }

    /// Publishes the raise, audited with its figures, and records the check, in one transaction with the proof
    /// that `claim` still holds the policy.
    public func raise(
        _ claim: MinimumVersionPolicyClaim, _ request: PublishRequest, _ outcome: MinimumVersionPolicyOutcome,
        figures: [String: String], actor: AuditActor
    ) async throws -> StoredVersion {
        try await database.transaction { connection in
            let logger = database.logger
            try await Self.checkHeld(claim, on: connection, logger: logger)
            let project = claim.policy.project
            let stored = try await TemplateStore.publish(project, request, actor: actor, on: connection, logger: logger)
            var detail = figures
            detail["versionNumber"] = String(stored.versionNumber)
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "minimumVersionPolicy.raise", detail: detail,
                logger: logger)
            try await Self.finish(claim, outcome, openedRequest: nil, on: connection, logger: logger)
            return stored
        }
    }

    /// Opens the raise as a change request, audited with its figures, and records the check and the request, in
    /// one transaction with the proof that `claim` still holds the policy.
    public func propose(
        _ claim: MinimumVersionPolicyClaim, _ proposal: ChangeRequestProposal, _ outcome: MinimumVersionPolicyOutcome,
        figures: [String: String], actor: AuditActor
    ) async throws -> ChangeRequest {
        try await database.transaction { connection in
            let logger = database.logger
            try await Self.checkHeld(claim, on: connection, logger: logger)
            let project = claim.policy.project
            let request = try await ChangeRequestStore.create(
                project, proposal, actor: actor, on: connection, logger: logger)
            var detail = figures
            detail["changeRequest"] = ChangeRequest.name(request.id)
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "minimumVersionPolicy.raise", detail: detail,
                logger: logger)
            try await Self.finish(claim, outcome, openedRequest: request.id, on: connection, logger: logger)
            return request
        }
    }

    @discardableResult
    static func finish(
        _ claim: MinimumVersionPolicyClaim, _ outcome: MinimumVersionPolicyOutcome, openedRequest: Int64?,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> MinimumVersionPolicy {
        let rows = try await connection.query(
            """
            UPDATE minimum_version_policies SET last_check_time = now(), last_result = \(outcome.result.rawValue),
                last_recommendation = \(outcome.recommendation), last_detail = \(outcome.detail),
                open_request_id = COALESCE(\(openedRequest), open_request_id),
                next_check_at = now() + make_interval(secs => check_interval_seconds),
                claim_token = NULL, claimed_until = NULL
            WHERE project_id = \(claim.policy.project) AND claim_token = \(claim.lease.token)
            RETURNING \(unescaped: Self.columns)
            """, logger: logger)
        guard let policy = try await decode(rows).first else { throw LeaseLost() }
        return policy
    }

    /// Throws `LeaseLost` unless `claim` holds its policy, which stays locked until the transaction ends.
    static func checkHeld(_ claim: MinimumVersionPolicyClaim, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        let rows = try await connection.query(
            """
            SELECT 1 FROM minimum_version_policies
            WHERE project_id = \(claim.policy.project) AND claim_token = \(claim.lease.token) FOR UPDATE
            """, logger: logger)
        for try await _ in rows { return }
        throw LeaseLost()
    }

    /// The settings as the audit log shows them.
    static func detail(_ settings: MinimumVersionPolicySettings) -> [String: String] {
        var detail = [
            "enabled": "\(settings.enabled)", "platform": settings.platform, "parameter": settings.parameter,
            "maxBlockedShare": "\(settings.maxBlockedShare)", "minActiveInstances": "\(settings.minActiveInstances)",
            "keepBehindLatest": "\(settings.keepBehindLatest)",
            "checkIntervalSeconds": "\(settings.checkIntervalSeconds)", "action": settings.action.rawValue,
        ]
        if let condition = settings.condition { detail["condition"] = condition }
        if let neverAbove = settings.neverAbove { detail["neverAbove"] = neverAbove }
        return detail
    }

    static let columns = """
        project_id, enabled, platform, parameter, condition, max_blocked_share, min_active_instances, never_above, \
        keep_behind_latest, check_interval_seconds, action, updated_at, revision, last_check_time, last_result, \
        last_recommendation, last_detail, open_request_id, next_check_at
        """

    static func decode(_ rows: PostgresRowSequence) async throws -> [MinimumVersionPolicy] {
        var policies: [MinimumVersionPolicy] = []
        for try await row in rows {
            let (
                project, enabled, platform, parameter, condition, share, minimum, neverAbove, behind, interval, action,
                updated, revision, lastCheck, lastResult, lastRecommendation, lastDetail, openRequest, next
            ) = try row.decode(
                (
                    String, Bool, String, String, String?, Double, Int, String?, Int, Int, String, Date, Int64, Date?,
                    String?, String?, String?, Int64?, Date
                ).self)
            policies.append(
                MinimumVersionPolicy(
                    project: project,
                    settings: MinimumVersionPolicySettings(
                        enabled: enabled, platform: platform, parameter: parameter, condition: condition,
                        maxBlockedShare: share, minActiveInstances: minimum, neverAbove: neverAbove,
                        keepBehindLatest: behind, checkIntervalSeconds: interval,
                        action: .init(rawValue: action) ?? .changeRequest),
                    status: MinimumVersionPolicyStatus(
                        lastCheckTime: lastCheck, lastResult: lastResult.flatMap { .init(rawValue: $0) },
                        lastRecommendation: lastRecommendation, lastDetail: lastDetail, openRequestId: openRequest,
                        nextCheckTime: next),
                    updateTime: updated, revision: revision))
        }
        return policies
    }
}
