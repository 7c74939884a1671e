import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

/// Change requests in PostgreSQL. Every action locks the project row first (as every publish does), so
/// actions on one project's requests, and its publishes, happen one after another and never deadlock.
public struct ChangeRequestStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Opens a change request for `project` and returns it. `proposal.templateJSON` must be validated by the
    /// caller as a publish validates it; the rule on rollouts' conditions is checked here, as a publish checks
    /// it (`TemplateStoreError.invalid`), and the template is stored as a publish would store it. Its state follows from the project's settings: `SCHEDULED` at once
    /// when it has a `publishTime` and the project requires no approval, else `OPEN`. Audited as
    /// `changeRequest.create`. `StoreError.notFound` for no such project.
    public func create(_ project: String, _ proposal: ChangeRequestProposal, actor: AuditActor) async throws
        -> ChangeRequest
    {
        try await database.transaction { connection in
            try await Self.create(project, proposal, actor: actor, on: connection, logger: database.logger)
        }
    }

    /// `create` inside a transaction the caller holds (a server-made request written with its own bookkeeping).
    static func create(
        _ project: String, _ proposal: ChangeRequestProposal, actor: AuditActor, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> ChangeRequest {
        let lock = try await TemplateStore.lockProjectState(project, on: connection, logger: logger)
        let base = proposal.baseVersion ?? lock.latestVersion
        // Reviewers approve what would be published: held to the same rule on rollouts' conditions.
        let json = try await RolloutStore.guarded(
            proposal.templateJSON, project: project, latest: lock.latestVersion, publishing: nil,
            on: connection, logger: logger)
        let rows = try await connection.query(
            """
            INSERT INTO change_requests (project_id, description, author_key, author_name, base_version,
                template, rollback_source, publish_time, auto_approved, author_user, author_email,
                promoted_from_project, promoted_from_version)
            VALUES (\(project), \(proposal.description), \(actor.keyId), \(actor.displayName), \(base),
                \(json)::json, \(proposal.rollbackSource), \(proposal.publishTime),
                \(proposal.autoApproved), \(actor.userId), \(actor.email), \(proposal.promotedFrom?.project),
                \(proposal.promotedFrom?.versionNumber))
            RETURNING request_id
            """, logger: logger)
        var created: Int64?
        for try await id in rows.decode(Int64.self) { created = id }
        guard let id = created else { throw StoreError.notFound("change request") }
        try await Self.settle(project, on: connection, logger: logger)
        let request = try await Self.read(project, id, on: connection, logger: logger)
        var detail = [
            "changeRequest": ChangeRequest.name(id), "baseVersionNumber": String(base),
            "state": request.state.rawValue,
        ]
        if let time = proposal.publishTime { detail["publishTime"] = Self.timestamp(time) }
        if let source = proposal.rollbackSource { detail["rollbackSource"] = String(source) }
        if proposal.autoApproved { detail["autoApproved"] = "true" }
        if let source = proposal.promotedFrom {
            detail["promotedFrom"] = "\(source.project) version \(source.versionNumber)"
        }
        try await AuditLog.append(
            on: connection, project: project, actor: actor, action: "changeRequest.create", detail: detail,
            logger: logger)
        try await WebhookEvents.changeRequest(
            .changeRequestOpened, request, comment: nil, actor: actor, on: connection, logger: logger)
        return request
    }

    /// One change request of `project`, with its template and approvals; nil when there is none.
    public func get(_ project: String, _ id: Int64) async throws -> ChangeRequest? {
        try await database.run { client in
            try await client.withConnection { connection in
                try await Self.find(project, id, on: connection, logger: database.logger)
            }
        }
    }

    /// One page of the change requests of `project`, newest first, without their templates; the token is the
    /// last id shown.
    public func list(_ project: String, _ query: ChangeRequestQuery) async throws -> Page<ChangeRequest> {
        try await Page.read(size: query.limit, token: \.id) { limit in
            try await database.run { client in
                try await client.withConnection { connection in
                    let rows = try await connection.query(
                        """
                        SELECT \(unescaped: Self.columns(template: false)) FROM change_requests r
                        WHERE r.project_id = \(project) AND r.request_id < \(query.before ?? Int64.max)
                          AND (\(query.state?.rawValue)::text IS NULL OR r.state = \(query.state?.rawValue))
                        ORDER BY r.request_id DESC LIMIT \(limit)
                        """, logger: database.logger)
                    return try await Self.decode(rows, on: connection, logger: database.logger)
                }
            }
        }
    }

    /// Records `actor`'s approval (one per key; never the author's) and moves the request to the state its
    /// approvals give it. Audited as `changeRequest.approve`.
    public func approve(_ project: String, _ id: Int64, comment: String, actor: AuditActor) async throws
        -> ChangeRequest
    {
        try await database.transaction { connection in
            let logger = database.logger
            _ = try await TemplateStore.lockProjectState(project, on: connection, logger: logger)
            let request = try await Self.read(project, id, on: connection, logger: logger)
            guard !request.state.isFinal else {
                throw ChangeRequestError.wrongState(id: id, state: request.state, action: "approve")
            }
            // Four eyes means two people: never the author's identity, whichever session or key it acts through.
            guard let identity = actor.identity, identity != request.author.identity,
                actor.keyId == nil || actor.keyId != request.author.keyId
            else {
                throw ChangeRequestError.selfApproval(id: id)
            }
            try await Self.checkNotAuthorsProxy(actor, request: request, on: connection, logger: logger)
            let rows = try await connection.query(
                """
                INSERT INTO change_request_approvals (request_id, key_id, display_name, comment, user_id, email,
                    identity)
                VALUES (\(id), \(actor.keyId), \(actor.displayName), \(comment), \(actor.userId), \(actor.email),
                    \(identity))
                ON CONFLICT (request_id, identity) DO NOTHING RETURNING request_id
                """, logger: logger)
            var inserted = false
            for try await _ in rows { inserted = true }
            guard inserted else { throw ChangeRequestError.alreadyApproved(id: id) }
            try await Self.settle(project, on: connection, logger: logger)
            let approved = try await Self.read(project, id, on: connection, logger: logger)
            var detail = ["changeRequest": ChangeRequest.name(id), "state": approved.state.rawValue]
            if !comment.isEmpty { detail["comment"] = comment }
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "changeRequest.approve", detail: detail,
                logger: logger)
            // Once, when its approvals make it publishable.
            if request.state == .open, approved.state != .open {
                try await WebhookEvents.changeRequest(
                    .changeRequestApproved, approved, comment: comment, actor: actor, on: connection, logger: logger)
            }
            return approved
        }
    }

    /// Rejects the request for good. Audited as `changeRequest.reject`.
    public func reject(_ project: String, _ id: Int64, comment: String, actor: AuditActor) async throws
        -> ChangeRequest
    {
        try await close(project, id, to: .rejected, comment: comment, actor: actor, action: "reject") { _ in }
    }

    /// Withdraws the request; only its author may, or an admin (`asAdmin`). Audited as `changeRequest.cancel`.
    public func cancel(_ project: String, _ id: Int64, actor: AuditActor, asAdmin: Bool) async throws
        -> ChangeRequest
    {
        try await close(project, id, to: .cancelled, comment: "", actor: actor, action: "cancel") { request in
            if !asAdmin, actor.identity == nil || actor.identity != request.author.identity {
                throw ChangeRequestError.notAuthor(id: id)
            }
        }
    }

    private func close(
        _ project: String, _ id: Int64, to state: ChangeRequest.State, comment: String, actor: AuditActor,
        action: String, check: @escaping @Sendable (ChangeRequest) throws -> Void
    ) async throws -> ChangeRequest {
        try await database.transaction { connection in
            let logger = database.logger
            _ = try await TemplateStore.lockProjectState(project, on: connection, logger: logger)
            let request = try await Self.read(project, id, on: connection, logger: logger)
            guard !request.state.isFinal else {
                throw ChangeRequestError.wrongState(id: id, state: request.state, action: action)
            }
            try check(request)
            try await connection.query(
                """
                UPDATE change_requests SET state = \(state.rawValue), closed_by_key = \(actor.keyId),
                    closed_by_name = \(actor.email ?? actor.displayName), closed_at = now(), close_comment = \(comment),
                    closed_by_user = \(actor.userId), updated_at = now()
                WHERE request_id = \(id)
                """, logger: logger)
            var detail = ["changeRequest": ChangeRequest.name(id)]
            if !comment.isEmpty { detail["comment"] = comment }
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "changeRequest.\(action)", detail: detail,
                logger: logger)
            // A rollout it proposed will not start now.
            try await RolloutStore.proposalClosed(id, project: project, actor: actor, on: connection, logger: logger)
            let closed = try await Self.read(project, id, on: connection, logger: logger)
            try await WebhookEvents.changeRequest(
                state == .rejected ? .changeRequestRejected : .changeRequestCancelled, closed, comment: comment,
                actor: actor, on: connection,
                logger: logger)
            return closed
        }
    }

    /// Refuses an approval that stands for the request's author: a key whose display name would pass for the
    /// author's (`ConfusableSkeleton`: case, compatibility forms, look-alike letters of other scripts and
    /// invisible characters do not tell names apart; an empty name says nothing), and a key of the author's lineage. A
    /// key made by a key without an owner counts as the identity of the key that made it, so the approving key
    /// may be neither one the author's key made (in turn, at any depth) nor one that made the author's key:
    /// minting a second key gives no second pair of eyes, in either direction. Two keys made by the same key
    /// are told apart. (A person's keys are theirs by owner, and compared as the person.)
    static func checkNotAuthorsProxy(
        _ actor: AuditActor, request: ChangeRequest, on connection: PostgresConnection, logger: Logger
    ) async throws {
        if request.author.keyId != nil, actor.userId == nil,
            ConfusableSkeleton.confusable(actor.displayName, request.author.displayName)
        {
            throw ChangeRequestError.selfApprovalByProxy(
                id: request.id, why: "its display name is the author's (\(request.author.displayName))")
        }
        guard let author = request.author.keyId, let key = actor.keyId else { return }
        for (descendant, ancestor, why) in [
            (key, author, "it was made by the author's key, so it counts as the author"),
            (author, key, "it made the author's key, so the author counts as it"),
        ] {
            let rows = try await connection.query(
                """
                WITH RECURSIVE lineage (key_id, created_by, depth) AS (
                    SELECT key_id, created_by, 0 FROM api_keys WHERE key_id = \(descendant)
                    UNION ALL
                    SELECT k.key_id, k.created_by, l.depth + 1
                    FROM api_keys k JOIN lineage l ON k.key_id = l.created_by
                    WHERE l.depth < 64
                )
                SELECT 1 FROM lineage WHERE created_by = \(ancestor)
                """, logger: logger)
            for try await _ in rows { throw ChangeRequestError.selfApprovalByProxy(id: request.id, why: why) }
        }
    }

    /// Moves every undecided request of `project` to the state its approvals and the project's settings give
    /// it: `SCHEDULED` with a `publishTime` once publishable (approved enough or by the server, or no
    /// approval required), else `APPROVED` when approved enough or by the server, else `OPEN`. The one place that rule lives. When one becomes
    /// `SCHEDULED`, every server's scheduler is told (on commit) to look at the publish times again.
    static func settle(_ project: String, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            """
            UPDATE change_requests c SET state = s.next, updated_at = now()
            FROM (
                SELECT r.request_id,
                    CASE WHEN r.publish_time IS NOT NULL
                              AND (NOT p.require_approval OR r.auto_approved
                                   OR count(a.identity) >= p.approvals_required) THEN 'SCHEDULED'
                         WHEN r.auto_approved OR count(a.identity) >= p.approvals_required THEN 'APPROVED'
                         ELSE 'OPEN' END AS next
                FROM change_requests r
                JOIN projects p ON p.project_id = r.project_id
                LEFT JOIN change_request_approvals a ON a.request_id = r.request_id
                WHERE r.project_id = \(project) AND r.state IN ('OPEN', 'APPROVED', 'SCHEDULED')
                GROUP BY r.request_id, r.auto_approved, p.require_approval, p.approvals_required
            ) s
            WHERE c.request_id = s.request_id AND c.state <> s.next
            RETURNING c.state
            """, logger: logger)
        var scheduled = false
        for try await state in rows.decode(String.self) where state == ChangeRequest.State.scheduled.rawValue {
            scheduled = true
        }
        if scheduled { try await StoreEvent.scheduled(project: project).notify(on: connection, logger: logger) }
    }

    /// The request, or `StoreError.notFound`.
    static func read(_ project: String, _ id: Int64, on connection: PostgresConnection, logger: Logger) async throws
        -> ChangeRequest
    {
        guard let request = try await find(project, id, on: connection, logger: logger) else {
            throw StoreError.notFound("change request \(id) of \(project)")
        }
        return request
    }

    static func find(_ project: String, _ id: Int64, on connection: PostgresConnection, logger: Logger) async throws
        -> ChangeRequest?
    {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: columns(template: true)) FROM change_requests r
            WHERE r.project_id = \(project) AND r.request_id = \(id)
            """, logger: logger)
        return try await decode(rows, on: connection, logger: logger).first
    }

    static func columns(template: Bool) -> String {
        """
        r.request_id, r.project_id, r.state, r.description, r.author_key, r.author_name, r.base_version, \
        \(template ? "r.template::text" : "NULL::text"), r.rollback_source, r.publish_time, r.created_at, \
        r.updated_at, r.published_version, r.closed_by_key, r.closed_by_name, r.closed_at, r.close_comment, \
        r.auto_approved, r.author_user, r.author_email, r.closed_by_user, r.promoted_from_project, \
        r.promoted_from_version
        """
    }

    /// Decodes requests and reads their approvals (one more query for all of them).
    static func decode(_ rows: PostgresRowSequence, on connection: PostgresConnection, logger: Logger) async throws
        -> [ChangeRequest]
    {
        typealias Row = (
            Int64, String, String, String, String?, String, Int64, String?, Int64?, Date?, Date, Date, Int64?,
            String?, String?, Date?, String?, Bool, String?, String?, String?, String?, Int64?
        )
        var read: [Row] = []
        for try await row in rows.decode(Row.self) { read.append(row) }
        guard !read.isEmpty else { return [] }
        let ids = read.map(\.0)
        var approvals: [Int64: [ChangeRequest.Approval]] = [:]
        let approvalRows = try await connection.query(
            """
            SELECT request_id, key_id, display_name, approved_at, comment, user_id, email
            FROM change_request_approvals
            WHERE request_id = ANY(\(ids)) ORDER BY approved_at, identity
            """, logger: logger)
        for try await (id, key, name, time, comment, user, email) in approvalRows.decode(
            (Int64, String?, String, Date, String, String?, String?).self)
        {
            approvals[id, default: []].append(
                ChangeRequest.Approval(
                    keyId: key, displayName: name, time: time, comment: comment, userId: user, email: email))
        }
        return read.map { row in
            let closure = row.15.map { time in
                ChangeRequest.Closure(keyId: row.13, displayName: row.14 ?? "", time: time, comment: row.16 ?? "")
            }
            return ChangeRequest(
                id: row.0, project: row.1, state: ChangeRequest.State(rawValue: row.2) ?? .open, description: row.3,
                author: AuditActor(keyId: row.4, displayName: row.5, userId: row.18, email: row.19),
                baseVersion: row.6, templateJSON: row.7,
                rollbackSource: row.8, publishTime: row.9, createTime: row.10, updateTime: row.11,
                publishedVersion: row.12, approvals: approvals[row.0] ?? [], closure: closure, autoApproved: row.17,
                promotedFrom: PromotedFrom(project: row.21, versionNumber: row.22))
        }
    }

    /// Gregorian at every date, as the routes answer it (Foundation's formatters are Julian before 1582-10-15).
    static func timestamp(_ date: Date) -> String {
        RFC3339.format(date)
    }
}
