import Foundation
import Logging
import PostgresNIO

/// The shared PostgreSQL pool, with the deadline and error mapping every store call goes through.
public final class Database: Sendable {
    public let client: PostgresClient
    public let url: DatabaseURL
    let logger: Logger
    /// How long a store call may wait before the database counts as unavailable.
    let deadline: Duration

    /// Creates the pool; it connects once `client.run()` runs (the application adds it as a service).
    public init(url: DatabaseURL, logger: Logger, deadline: Duration = .seconds(5), maximumConnections: Int = 20) {
        var configuration = url.clientConfiguration()
        configuration.options.maximumConnections = maximumConnections
        self.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.url = url
        self.logger = logger
        self.deadline = deadline
    }

    /// Runs `body` with the pool, failing with `StoreError.unavailable` when the database does not answer in time.
    public func run<T: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T {
        let client = self.client
        do {
            return try await withDeadline(deadline) { try await body(client) }
        } catch {
            throw StoreError.map(error)
        }
    }

    /// Runs `body` in one transaction.
    public func transaction<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let logger = self.logger
        return try await run { client in
            try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }

    /// Whether the database answers a trivial query within a second.
    public func ping() async -> Bool {
        let client = self.client
        let answered = try? await withDeadline(.seconds(1)) {
            for try await _ in try await client.query("SELECT 1") {}
            return true
        }
        return answered ?? false
    }
}

/// Runs `body`, or throws `StoreError.unavailable` when `limit` passes first (the body is cancelled).
func withDeadline<T: Sendable>(
    _ limit: Duration, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw StoreError.unavailable("no answer within \(limit)")
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// Opens one standalone connection (start-up checks, migrations), failing clearly when unreachable.
public func connectOnce(_ url: DatabaseURL, logger: Logger, timeout: Duration = .seconds(10)) async throws
    -> PostgresConnection
{
    var configuration = try url.connectionConfiguration()
    // The driver's own timeout, not `withDeadline`: a connection that completes after a deadline fired
    // would be dropped unclosed.
    let parts = timeout.components
    configuration.options.connectTimeout = .nanoseconds(
        parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000)
    do {
        return try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
    } catch {
        throw StoreError.map(error)
    }
}

extension PostgresClient {
    /// Runs a statement and reads its result to the end, so the connection goes back to the pool at once.
    func execute(_ query: PostgresQuery) async throws {
        for try await _ in try await self.query(query) {}
    }
}
