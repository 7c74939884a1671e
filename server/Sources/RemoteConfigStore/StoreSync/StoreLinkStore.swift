import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

/// Store links in PostgreSQL, and the claims that let exactly one replica sync a link at a time.
public struct StoreLinkStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// The link of `project`, or nil when none was ever set.
    public func get(_ project: String) async throws -> StoreLink? {
        try await database.run { client in
            let rows = try await client.query(
                "SELECT \(unescaped: Self.columns) FROM store_links WHERE project_id = \(project)")
            return try await Self.decode(rows).first
        }
    }

    /// Creates or replaces the link's settings, audited, when its revision is still `expectedRevision` (0: no
    /// link yet; nil: whatever is there), else `StaleRevision`. The status is kept, but the backoff starts afresh
    /// and the link is due at once, so new settings are tried without waiting for the old interval.
    public func save(
        _ project: String, _ settings: StoreLinkSettings, expectedRevision: Int64? = nil, actor: AuditActor
    ) async throws -> StoreLink {
        let mappings = try Self.encode(settings.parameters)
        return try await database.transaction { connection in
            _ = try await TemplateStore.lockProject(project, on: connection, logger: database.logger)
            if let expectedRevision {
                // The project's lock keeps the link as read here until the write below.
                var current: Int64 = 0
                let rows = try await connection.query(
                    "SELECT revision FROM store_links WHERE project_id = \(project)", logger: database.logger)
                for try await revision in rows.decode(Int64.self) { current = revision }
                if current != expectedRevision { throw StaleRevision("store link", current: current) }
            }
            let rows = try await connection.query(
                """
                INSERT INTO store_links AS l (project_id, enabled, app_store_id, country, interval_seconds,
                    parameters, auto_approve, release_delay_seconds)
                VALUES (\(project), \(settings.enabled), \(settings.appStoreId), \(settings.country),
                    \(settings.intervalSeconds), \(mappings)::json, \(settings.autoApprove),
                    \(settings.releaseDelaySeconds))
                ON CONFLICT (project_id) DO UPDATE SET enabled = EXCLUDED.enabled,
                    app_store_id = EXCLUDED.app_store_id, country = EXCLUDED.country,
                    interval_seconds = EXCLUDED.interval_seconds, parameters = EXCLUDED.parameters,
                    auto_approve = EXCLUDED.auto_approve, release_delay_seconds = EXCLUDED.release_delay_seconds,
                    updated_at = now(), failures = 0, next_sync_at = now(), revision = nextval('settings_revisions')
                RETURNING \(unescaped: Self.columns)
                """, logger: database.logger)
            guard let saved = try await Self.decode(rows).first else { throw StoreError.notFound("store link") }
            let detail: [String: String] = [
                "enabled": "\(settings.enabled)", "appStoreId": settings.appStoreId, "country": settings.country,
                "intervalSeconds": "\(settings.intervalSeconds)", "autoApprove": "\(settings.autoApprove)",
                "releaseDelaySeconds": "\(settings.releaseDelaySeconds)",
                "parameters": settings.parameters.map { "\($0.parameter)=\($0.field)" }.joined(separator: ","),
            ]
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "storeSync.update", detail: detail,
                logger: database.logger)
            return saved
        }
    }

    /// Claims one enabled link that is due and that no sync holds, for `lease`; nil when there is none
    /// (`SyncLinkTable.claimDue`).
    public func claimDue(lease: Duration) async throws -> StoreLinkClaim? {
        let granted = Lease(lasting: lease)
        return try await database.run { client in
            let rows = try await SyncLinkTable.appStore.claimDue(granted, returning: Self.columns, on: client)
            return try await Self.decode(rows).first.map { StoreLinkClaim(link: $0, lease: granted) }
        }
    }

    /// Claims the link of `project` whether or not it is due or enabled (a sync asked for now); nil while
    /// another sync holds it. `StoreError.notFound` when the project has no link.
    public func claim(_ project: String, lease: Duration) async throws -> StoreLinkClaim? {
        let granted = Lease(lasting: lease)
        return try await database.run { client in
            let rows = try await SyncLinkTable.appStore.claim(project, granted, returning: Self.columns, on: client)
            if let link = try await Self.decode(rows).first { return StoreLinkClaim(link: link, lease: granted) }
            if try await SyncLinkTable.appStore.exists(project, on: client) { return nil }
            throw StoreError.notFound("store link of \(project)")
        }
    }

    /// Records a successful sync and lets go of the link; it is due again after its interval, or when a
    /// version held back (`pendingUntil`) may be published, whichever comes first.
    public func succeeded(_ claim: StoreLinkClaim, storeVersion: String, pendingUntil: Date? = nil) async throws
        -> StoreLink
    {
        let pendingVersion = pendingUntil == nil ? nil : storeVersion
        return try await finish {
            try await $0.query(
                """
                UPDATE store_links SET last_sync_time = now(), last_store_version = \(storeVersion), last_error = NULL,
                    failures = 0, pending_store_version = \(pendingVersion), pending_until = \(pendingUntil),
                    next_sync_at = CASE WHEN \(pendingUntil)::timestamptz IS NULL
                        THEN now() + make_interval(secs => interval_seconds)
                        ELSE LEAST(now() + make_interval(secs => interval_seconds),
                            GREATEST(\(pendingUntil)::timestamptz, now())) END,
                    claim_token = NULL, claimed_until = NULL
                WHERE project_id = \(claim.link.project) AND claim_token = \(claim.lease.token)
                RETURNING \(unescaped: Self.columns)
                """)
        }
    }

    /// Records a failed sync and lets go of the link; it is due again after `retryAfter`. In the same
    /// transaction it records `storeSync.failed` for the project's webhooks, so every failed attempt reaches them
    /// once (the backoff keeps that to a few a day while a store stays down).
    public func failed(_ claim: StoreLinkClaim, error: String, retryAfter: Duration, actor: AuditActor) async throws
        -> StoreLink
    {
        let seconds = retryAfter.inSeconds
        let logger = database.logger
        return try await database.transaction { connection in
            let rows = try await connection.query(
                """
                UPDATE store_links SET last_sync_time = now(), last_error = \(error), failures = failures + 1,
                    next_sync_at = now() + make_interval(secs => \(seconds)), claim_token = NULL, claimed_until = NULL
                WHERE project_id = \(claim.link.project) AND claim_token = \(claim.lease.token)
                RETURNING \(unescaped: Self.columns)
                """, logger: logger)
            guard let link = try await Self.decode(rows).first else { throw StoreLinkError.claimLost }
            try await WebhookEvents.storeSyncFailed(link, on: connection, actor: actor, logger: logger)
            return link
        }
    }

    /// Runs a claim's last write; `claimLost` when it no longer held the link.
    private func finish(_ update: @escaping @Sendable (PostgresClient) async throws -> PostgresRowSequence)
        async throws -> StoreLink
    {
        try await database.run { client in
            guard let link = try await Self.decode(try await update(client)).first else {
                throw StoreLinkError.claimLost
            }
            return link
        }
    }

    static let columns = """
        project_id, enabled, app_store_id, country, interval_seconds, parameters::text, auto_approve, updated_at, \
        last_sync_time, last_store_version, last_error, failures, next_sync_at, release_delay_seconds, \
        pending_store_version, pending_until, revision
        """

    static func encode(_ mappings: [StoreLinkMapping]) throws -> String {
        String(decoding: try JSONEncoder().encode(mappings), as: UTF8.self)
    }

    static func decode(_ rows: PostgresRowSequence) async throws -> [StoreLink] {
        var links: [StoreLink] = []
        for try await row in rows {
            let (
                project, enabled, appStoreId, country, interval, mappings, autoApprove, updated, lastSync,
                lastVersion, lastError, failures, next, releaseDelay, pendingVersion, pendingUntil, revision
            ) = try row.decode(
                (
                    String, Bool, String, String, Int, String, Bool, Date, Date?, String?, String?, Int, Date, Int,
                    String?, Date?, Int64
                ).self)
            let parameters = try JSONDecoder().decode([StoreLinkMapping].self, from: Data(mappings.utf8))
            links.append(
                StoreLink(
                    project: project,
                    settings: StoreLinkSettings(
                        enabled: enabled, appStoreId: appStoreId, country: country, intervalSeconds: interval,
                        parameters: parameters, autoApprove: autoApprove, releaseDelaySeconds: releaseDelay),
                    status: StoreLinkStatus(
                        lastSyncTime: lastSync, lastStoreVersion: lastVersion, lastError: lastError,
                        consecutiveFailures: failures, nextSyncTime: next, pendingStoreVersion: pendingVersion,
                        pendingUntil: pendingUntil),
                    updateTime: updated, revision: revision))
        }
        return links
    }
}
