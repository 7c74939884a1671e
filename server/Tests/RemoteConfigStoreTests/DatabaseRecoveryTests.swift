import Logging
import PostgresNIO
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigStore

/// The pool renewal after an outage must never fail the work of a pool that already recovered.
@Suite struct DatabaseRecoveryTests {
    static let logger = Logger(label: "test")

    /// Runs `body` with a running database service on a fresh database.
    static func withDatabase(
        deadline: Duration, _ body: @Sendable (Database) async throws -> Void
    ) async throws {
        try await withRunningDatabase(deadline: deadline, body)
    }

    static func sleep(_ database: Database, seconds: Double) async throws -> Int {
        try await database.run { client in
            for try await _ in try await client.query("SELECT pg_sleep(\(seconds))") {}
            return 1
        }
    }

    @Test func aPoolThatAnswersIsKeptAndItsWorkFinishes() async throws {
        try await Self.withDatabase(deadline: .seconds(3)) { database in
            // Open a few connections first, so the calls below need not wait for one.
            async let warm = [Self.sleep(database, seconds: 0.1), Self.sleep(database, seconds: 0.1)]
            _ = try await (Self.sleep(database, seconds: 0.1), warm)
            // A call that outlives the deadline marks the database as failing, as an outage would.
            await #expect(throws: StoreError.self) { _ = try await Self.sleep(database, seconds: 3.5) }
            let pool = ObjectIdentifier(database.client)
            async let inFlight = Self.sleep(database, seconds: 1)
            try await Task.sleep(for: .milliseconds(100))
            // The listener reconnected: the pool answers, so it must stay, and the call it serves succeed.
            await database.recoverIfFailing(probe: .seconds(2))
            #expect(try await inFlight == 1, "a call in flight on the recovered pool is not cut off")
            #expect(ObjectIdentifier(database.client) == pool, "a pool that answers is not replaced")
        }
    }

    @Test func poolErrorsMeanUnavailable() {
        for error in ConnectionPoolErrors.all {
            guard case StoreError.unavailable = StoreError.map(error) else {
                Issue.record("\(error) should map to unavailable (503), not an internal error")
                continue
            }
        }
    }
}
