import Foundation
import Logging
import PostgresNIO

/// The link a sync holds and its lease, whichever store the link follows (App Store, Google Play): every write of
/// the sync (its publish, its change request) checks it, so a sync whose lease ran out writes nothing.
public struct SyncFence: Sendable, Equatable {
    /// The table of the link's kind.
    let table: SyncLinkTable
    public let project: String
    public let lease: Lease

    /// Throws `StoreLinkError.claimLost` unless the fence still holds its link, which stays locked until the
    /// transaction ends.
    func check(on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            """
            SELECT 1 FROM \(unescaped: table.rawValue)
            WHERE project_id = \(project) AND claim_token = \(lease.token) FOR UPDATE
            """, logger: logger)
        for try await _ in rows { return }
        throw StoreLinkError.claimLost
    }
}

/// The tables of store links, each with the same claim columns (`claim_token`, `claimed_until`).
enum SyncLinkTable: String, Sendable {
    case appStore = "store_links"
    case googlePlay = "google_play_links"
}

/// The writes every kind of store link shares: a sync's publish and the check that it still holds its link.
public struct SyncFences: Sendable {
    let database: Database

    /// The fenced writes over `database`.
    public init(database: Database) {
        self.database = database
    }

    /// Publishes the next version for a sync, in one transaction with the check that `fence` still holds the
    /// link: the ordinary publish (project lock, ETag, version, audit, NOTIFY).
    public func publish(_ fence: SyncFence, _ request: PublishRequest, actor: AuditActor) async throws
        -> StoredVersion
    {
        try await database.transaction { connection in
            try await fence.check(on: connection, logger: database.logger)
            return try await TemplateStore.publish(
                fence.project, request, actor: actor, on: connection, logger: database.logger)
        }
    }

    /// Throws `claimLost` unless `fence` still holds its link.
    public func checkHeld(_ fence: SyncFence) async throws {
        try await database.transaction { connection in
            try await fence.check(on: connection, logger: database.logger)
        }
    }
}

extension SyncLinkTable {
    /// Claims one enabled link of this table that is due and that no sync holds, answering its `columns`.
    /// Replicas asking at once get different links (`FOR UPDATE SKIP LOCKED`), and a claimed link is not due for
    /// anyone else until its lease runs out.
    func claimDue(_ lease: Lease, returning columns: String, on client: PostgresClient) async throws
        -> PostgresRowSequence
    {
        try await client.query(
            """
            UPDATE \(unescaped: rawValue) SET claim_token = \(lease.token),
                claimed_until = clock_timestamp() + make_interval(secs => \(lease.seconds))
            WHERE project_id = (
                SELECT project_id FROM \(unescaped: rawValue)
                WHERE enabled AND next_sync_at <= now() AND (claimed_until IS NULL OR claimed_until < clock_timestamp())
                ORDER BY next_sync_at LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING \(unescaped: columns)
            """)
    }

    /// Claims the link of `project`, due or not, enabled or not, answering its `columns`; no row while another
    /// sync holds it (or there is no link).
    func claim(_ project: String, _ lease: Lease, returning columns: String, on client: PostgresClient)
        async throws -> PostgresRowSequence
    {
        // An UPDATE locks the row and re-checks its condition after a concurrent claim commits, so two claims
        // never both succeed.
        try await client.query(
            """
            UPDATE \(unescaped: rawValue) SET claim_token = \(lease.token),
                claimed_until = clock_timestamp() + make_interval(secs => \(lease.seconds))
            WHERE project_id = \(project) AND (claimed_until IS NULL OR claimed_until < clock_timestamp())
            RETURNING \(unescaped: columns)
            """)
    }

    /// Whether `project` has a link in this table.
    func exists(_ project: String, on client: PostgresClient) async throws -> Bool {
        let rows = try await client.query(
            "SELECT 1 FROM \(unescaped: rawValue) WHERE project_id = \(project)")
        for try await _ in rows { return true }
        return false
    }
}
