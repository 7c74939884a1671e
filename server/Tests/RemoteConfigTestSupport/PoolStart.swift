import RemoteConfigStore
import ServiceLifecycle

/// Opens once a database pool is running, so that nothing leases a connection from it before.
///
/// PostgresNIO logs a warning for every lease made before its pool's `run()`, and Hummingbird starts the
/// services and the work before the server starts (which queries the database) at the same time: a test that
/// waits here keeps its output free of those lines, so a real warning stands out.
public final class PoolStart: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    }

    /// Runs `database` (its pool), opening the gate as it starts.
    public func run(_ database: Database) async throws {
        continuation.finish()
        try await database.run()
    }

    /// Returns once `run(_:)` has started the pool.
    public func wait() async {
        for await _ in stream {}
        // `Database.run()` starts the pool's own `run()` in a task of its own: let that task begin.
        try? await Task.sleep(for: .milliseconds(20))
    }
}
