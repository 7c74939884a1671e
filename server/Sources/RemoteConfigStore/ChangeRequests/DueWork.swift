import Logging
import PostgresNIO

/// Work that comes due by the database's clock, which every replica shares (scheduled change requests, rollout
/// steps): every replica runs it, and each item is done exactly once.
enum DueWork {
    /// Lists the due items with `due` (rows of an id and its project), then does each in its own transaction:
    /// takes its project's row lock with `SKIP LOCKED` (a replica that finds it held leaves the item to the
    /// holder and its own next round), checks with `stillDue` (a query that finds the item's row only while it is
    /// still due, and locks it) that no other replica did it meanwhile, and runs `work`. Returns what `work`
    /// returned, in the order of `due`.
    static func run<T: Sendable>(
        _ database: Database, due: PostgresQuery, stillDue: @escaping @Sendable (Int64) -> PostgresQuery,
        work:
            @escaping @Sendable (Int64, String, TemplateStore.ProjectLock, PostgresConnection, Logger)
            async throws -> T?
    ) async throws -> [T] {
        let items = try await database.run { client in
            var items: [(Int64, String)] = []
            for try await row in try await client.query(due).decode((Int64, String).self) { items.append(row) }
            return items
        }
        var done: [T] = []
        for (id, project) in items {
            let result = try await database.transaction { connection -> T? in
                let logger = database.logger
                guard
                    let lock = try await TemplateStore.lockProjectState(
                        project, skipLocked: true, on: connection, logger: logger)
                else { return nil }
                var found = false
                for try await _ in try await connection.query(stillDue(id), logger: logger) { found = true }
                guard found else { return nil }
                return try await work(id, project, lock, connection, logger)
            }
            if let result { done.append(result) }
        }
        return done
    }

    /// How long until the next item is due by the database's clock (zero or less: due now), from `query`, which
    /// answers one row with the seconds until then as a float (NULL when nothing waits); nil when nothing waits.
    static func nextDue(_ database: Database, _ query: PostgresQuery) async throws -> Duration? {
        try await database.run { client in
            for try await seconds in try await client.query(query).decode(Double?.self) {
                return seconds.map { Duration.milliseconds(Int64(($0 * 1000).rounded(.up))) }
            }
            return nil
        }
    }
}
