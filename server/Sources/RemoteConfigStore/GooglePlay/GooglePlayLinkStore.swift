import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

/// Google Play links in PostgreSQL, their service-account keys sealed, and the claims that let exactly one
/// replica sync a link at a time (the same claim as store links', `SyncLinkTable`).
public struct GooglePlayLinkStore: Sendable {
    let database: Database
    let sealer: SecretSealer

    /// The store over `database`, its keys sealed by `sealer`.
    public init(database: Database, sealer: SecretSealer) {
        self.database = database
        self.sealer = sealer
    }

    /// Where a link's key is sealed for: a sealed key copied to another project's row does not open there.
    static func keyPlace(_ project: String) -> String { "google_play_links/\(project)" }

    /// The link of `project`, or nil when none is set.
    public func get(_ project: String) async throws -> GooglePlayLink? {
        try await database.run { client in
            let rows = try await client.query(
                "SELECT \(unescaped: Self.columns) FROM google_play_links WHERE project_id = \(project)")
            return try await Self.decode(rows).first?.link
        }
    }

    /// Creates or replaces the link's settings, audited (never with the key), when its revision is still
    /// `expectedRevision` (0: no link yet; nil: whatever is there), else `StaleRevision`. `key` replaces the
    /// stored key; nil keeps it (`StoreError.notFound` when there is none yet). The backoff starts afresh and
    /// the link is due at once.
    public func save(
        _ project: String, _ settings: GooglePlayLinkSettings, key: GooglePlayServiceAccountKey?,
        expectedRevision: Int64? = nil, actor: AuditActor
    ) async throws -> GooglePlayLink {
        let mappings = try StoreLinkStore.encode(settings.parameters)
        let logger = database.logger
        return try await database.transaction { connection in
            _ = try await TemplateStore.lockProject(project, on: connection, logger: logger)
            var current: Int64 = 0
            let rows = try await connection.query(
                "SELECT revision FROM google_play_links WHERE project_id = \(project)", logger: logger)
            for try await revision in rows.decode(Int64.self) { current = revision }
            if let expectedRevision, current != expectedRevision {
                throw StaleRevision("Google Play link", current: current)
            }
            let saved: PostgresRowSequence
            if let key {
                try await ServerSecrets.requireCurrentKey(sealer, on: connection, logger: logger)
                let sealed = try sealer.seal(key.privateKeyPEM, for: Self.keyPlace(project))
                saved = try await connection.query(
                    """
                    INSERT INTO google_play_links AS l (project_id, enabled, package_name, track, interval_seconds,
                        parameters, condition_name, staged_rollouts, auto_approve, client_email, private_key_id,
                        private_key)
                    VALUES (\(project), \(settings.enabled), \(settings.packageName), \(settings.track),
                        \(settings.intervalSeconds), \(mappings)::json, \(settings.condition),
                        \(settings.stagedRollouts.rawValue), \(settings.autoApprove), \(key.account.clientEmail),
                        \(key.account.privateKeyId), \(sealed))
                    ON CONFLICT (project_id) DO UPDATE SET enabled = EXCLUDED.enabled,
                        package_name = EXCLUDED.package_name, track = EXCLUDED.track,
                        interval_seconds = EXCLUDED.interval_seconds, parameters = EXCLUDED.parameters,
                        condition_name = EXCLUDED.condition_name, staged_rollouts = EXCLUDED.staged_rollouts,
                        auto_approve = EXCLUDED.auto_approve, client_email = EXCLUDED.client_email,
                        private_key_id = EXCLUDED.private_key_id, private_key = EXCLUDED.private_key,
                        updated_at = now(), failures = 0, next_sync_at = now(),
                        revision = nextval('settings_revisions')
                    RETURNING \(unescaped: Self.columns)
                    """, logger: logger)
            } else {
                guard current != 0 else { throw StoreError.notFound("service account key of \(project)") }
                saved = try await connection.query(
                    """
                    UPDATE google_play_links SET enabled = \(settings.enabled),
                        package_name = \(settings.packageName), track = \(settings.track),
                        interval_seconds = \(settings.intervalSeconds), parameters = \(mappings)::json,
                        condition_name = \(settings.condition), staged_rollouts = \(settings.stagedRollouts.rawValue),
                        auto_approve = \(settings.autoApprove), updated_at = now(), failures = 0,
                        next_sync_at = now(), revision = nextval('settings_revisions')
                    WHERE project_id = \(project)
                    RETURNING \(unescaped: Self.columns)
                    """, logger: logger)
            }
            guard let link = try await Self.decode(saved).first?.link else {
                throw StoreError.notFound("Google Play link")
            }
            var detail: [String: String] = [
                "enabled": "\(settings.enabled)", "packageName": settings.packageName, "track": settings.track,
                "intervalSeconds": "\(settings.intervalSeconds)", "autoApprove": "\(settings.autoApprove)",
                "stagedRollouts": settings.stagedRollouts.rawValue,
                "parameters": settings.parameters.map { "\($0.parameter)=\($0.field)" }.joined(separator: ","),
                "serviceAccount": link.serviceAccount.clientEmail,
                "privateKeyId": link.serviceAccount.privateKeyId,
                "serviceAccountKey": key == nil ? "kept" : "replaced",
            ]
            if let condition = settings.condition { detail["condition"] = condition }
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "storeSync.googlePlay.update",
                detail: detail, logger: logger)
            return link
        }
    }

    /// Removes the link and its key, audited, when its revision is still `expectedRevision` (nil: whatever is
    /// there); false when there was none.
    public func delete(_ project: String, expectedRevision: Int64? = nil, actor: AuditActor) async throws -> Bool {
        let logger = database.logger
        return try await database.transaction { connection in
            _ = try await TemplateStore.lockProject(project, on: connection, logger: logger)
            var current: Int64 = 0
            let rows = try await connection.query(
                "SELECT revision FROM google_play_links WHERE project_id = \(project)", logger: logger)
            for try await revision in rows.decode(Int64.self) { current = revision }
            if let expectedRevision, current != expectedRevision {
                throw StaleRevision("Google Play link", current: current)
            }
            guard current != 0 else { return false }
            try await connection.query(
                "DELETE FROM google_play_links WHERE project_id = \(project)", logger: logger)
            try await AuditLog.append(
                on: connection, project: project, actor: actor, action: "storeSync.googlePlay.delete", detail: [:],
                logger: logger)
            return true
        }
    }

    /// Claims one enabled link that is due and that no sync holds, for `lease`; nil when there is none.
    public func claimDue(lease: Duration) async throws -> GooglePlayLinkClaim? {
        let granted = Lease(lasting: lease)
        return try await database.run { client in
            let rows = try await SyncLinkTable.googlePlay.claimDue(granted, returning: Self.columns, on: client)
            return try await Self.decode(rows).first.map {
                GooglePlayLinkClaim(link: $0.link, lease: granted, sealedKey: $0.sealedKey)
            }
        }
    }

    /// Claims the link of `project` whether or not it is due or enabled; nil while another sync holds it.
    /// `StoreError.notFound` when the project has no link.
    public func claim(_ project: String, lease: Duration) async throws -> GooglePlayLinkClaim? {
        let granted = Lease(lasting: lease)
        return try await database.run { client in
            let rows = try await SyncLinkTable.googlePlay.claim(
                project, granted, returning: Self.columns, on: client)
            if let row = try await Self.decode(rows).first {
                return GooglePlayLinkClaim(link: row.link, lease: granted, sealedKey: row.sealedKey)
            }
            if try await SyncLinkTable.googlePlay.exists(project, on: client) { return nil }
            throw StoreError.notFound("Google Play link of \(project)")
        }
    }

    /// The claimed link's key, opened; `SealedSecretError` when this server's secrets key does not open it.
    public func key(of claim: GooglePlayLinkClaim) throws(SealedSecretError) -> GooglePlayServiceAccountKey {
        let pem = try sealer.open(claim.sealedKey, for: Self.keyPlace(claim.link.project))
        return GooglePlayServiceAccountKey(account: claim.link.serviceAccount, privateKeyPEM: pem)
    }

    /// Records a successful sync (the live release it read, and `note`, what it could not map, as `lastError`)
    /// and lets go of the link; it is due again after its interval.
    public func succeeded(_ claim: GooglePlayLinkClaim, release: GooglePlayReleaseSummary?, note: String?)
        async throws -> GooglePlayLink
    {
        let releaseJSON = try release.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        return try await database.run { client in
            let rows = try await client.query(
                """
                UPDATE google_play_links SET last_sync_time = now(),
                    last_release = COALESCE(\(releaseJSON)::json, last_release), last_error = \(note), failures = 0,
                    next_sync_at = now() + make_interval(secs => interval_seconds),
                    claim_token = NULL, claimed_until = NULL
                WHERE project_id = \(claim.link.project) AND claim_token = \(claim.lease.token)
                RETURNING \(unescaped: Self.columns)
                """)
            guard let link = try await Self.decode(rows).first?.link else { throw StoreLinkError.claimLost }
            return link
        }
    }

    /// Records a failed sync and lets go of the link; it is due again after `retryAfter`. In the same
    /// transaction it records `storeSync.failed` for the project's webhooks.
    public func failed(_ claim: GooglePlayLinkClaim, error: String, retryAfter: Duration, actor: AuditActor)
        async throws -> GooglePlayLink
    {
        let seconds = retryAfter.inSeconds
        let logger = database.logger
        return try await database.transaction { connection in
            let rows = try await connection.query(
                """
                UPDATE google_play_links SET last_sync_time = now(), last_error = \(error), failures = failures + 1,
                    next_sync_at = now() + make_interval(secs => \(seconds)), claim_token = NULL, claimed_until = NULL
                WHERE project_id = \(claim.link.project) AND claim_token = \(claim.lease.token)
                RETURNING \(unescaped: Self.columns)
                """, logger: logger)
            guard let link = try await Self.decode(rows).first?.link else { throw StoreLinkError.claimLost }
            try await WebhookEvents.googlePlaySyncFailed(link, on: connection, actor: actor, logger: logger)
            return link
        }
    }

    /// Every link's key opened with `current` and sealed with `new` (`secrets rotate-key`); returns how many.
    static func resealKeys(
        from current: SecretSealer, to new: SecretSealer, on connection: PostgresConnection, logger: Logger
    ) async throws -> Int {
        let rows = try await connection.query(
            "SELECT project_id, private_key FROM google_play_links ORDER BY project_id FOR UPDATE", logger: logger)
        var keys: [(String, String)] = []
        for try await row in rows.decode((String, String).self) { keys.append(row) }
        for (project, sealed) in keys {
            let place = keyPlace(project)
            let resealed = try new.seal(try current.open(sealed, for: place), for: place)
            try await connection.query(
                "UPDATE google_play_links SET private_key = \(resealed) WHERE project_id = \(project)",
                logger: logger)
        }
        return keys.count
    }

    static let columns = """
        project_id, enabled, package_name, track, interval_seconds, parameters::text, condition_name, \
        staged_rollouts, auto_approve, client_email, private_key_id, private_key, updated_at, revision, \
        last_sync_time, last_release::text, last_error, failures, next_sync_at
        """

    static func decode(_ rows: PostgresRowSequence) async throws -> [(link: GooglePlayLink, sealedKey: String)] {
        var links: [(link: GooglePlayLink, sealedKey: String)] = []
        for try await row in rows {
            let (
                project, enabled, packageName, track, interval, mappings, condition, staged, autoApprove, email,
                keyId, sealedKey, updated, revision, lastSync, lastRelease, lastError, failures, next
            ) = try row.decode(
                (
                    String, Bool, String, String, Int, String, String?, String, Bool, String, String, String, Date,
                    Int64, Date?, String?, String?, Int, Date
                ).self)
            let parameters = try JSONDecoder().decode([StoreLinkMapping].self, from: Data(mappings.utf8))
            let release = try lastRelease.map {
                try JSONDecoder().decode(GooglePlayReleaseSummary.self, from: Data($0.utf8))
            }
            let link = GooglePlayLink(
                project: project,
                settings: GooglePlayLinkSettings(
                    enabled: enabled, packageName: packageName, track: track, intervalSeconds: interval,
                    parameters: parameters, condition: condition,
                    stagedRollouts: GooglePlayStagedRollouts(rawValue: staged) ?? .completedOnly,
                    autoApprove: autoApprove),
                serviceAccount: GooglePlayServiceAccount(clientEmail: email, privateKeyId: keyId),
                status: GooglePlayLinkStatus(
                    lastSyncTime: lastSync, lastRelease: release, lastError: lastError,
                    consecutiveFailures: failures, nextSyncTime: next),
                updateTime: updated, revision: revision)
            links.append((link, sealedKey))
        }
        return links
    }
}
