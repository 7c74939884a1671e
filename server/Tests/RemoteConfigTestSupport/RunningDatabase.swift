import Logging
import RemoteConfigStore

/// Runs `body` with a running `Database` service (its pool started as the server starts it) on `url`, or on
/// a fresh migrated database of its own; the service stops when `body` returns.
public func withRunningDatabase<T: Sendable>(
    url: DatabaseURL? = nil, deadline: Duration = .seconds(30), maximumConnections: Int = 4,
    _ body: @Sendable (Database) async throws -> T
) async throws -> T {
    let url = if let url { url } else { try await TestCluster.shared.makeDatabase() }
    let database = Database(
        url: url, logger: Logger(label: "test"), deadline: deadline, maximumConnections: maximumConnections)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        let start = PoolStart()
        group.addTask { try await start.run(database) }
        defer { group.cancelAll() }
        await start.wait()
        return try await body(database)
    }
}
