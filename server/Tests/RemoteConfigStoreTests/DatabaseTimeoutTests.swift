import Foundation
import Logging
import PostgresNIO
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigStore

/// A call that runs out of time while PostgreSQL answers is `timedOut`; only a database that does not
/// answer at all is `unavailable`.
@Suite struct DatabaseTimeoutTests {
    static let logger = Logger(label: "test")

    /// Runs `body` with a running database service on `url`.
    /// `probeTimeout` is generous by default: on a loaded machine a new connection may be slow to start.
    static func withDatabase(
        url: DatabaseURL, deadline: Duration, probeTimeout: Duration = .seconds(10),
        _ body: @Sendable (Database) async throws -> Void
    ) async throws {
        let database = Database(
            url: url, logger: logger, deadline: deadline, maximumConnections: 12, probeTimeout: probeTimeout)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await database.run() }
            defer { group.cancelAll() }
            try await body(database)
        }
    }

    static func query(_ database: Database, _ sql: String) async throws {
        try await database.run { client in
            for try await _ in try await client.query(PostgresQuery(unsafeSQL: sql)) {}
        }
    }

    /// The error `body` throws, or nil.
    static func error(of body: () async throws -> Void) async -> StoreError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? StoreError
        }
    }

    @Test func aSlowQueryWhileTheDatabaseAnswersTimesOut() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        try await Self.withDatabase(url: url, deadline: .seconds(1)) { database in
            let error = await Self.error { try await Self.query(database, "SELECT pg_sleep(4)") }
            #expect(error == .timedOut(after: .seconds(1)))
        }
    }

    @Test func waitingForALockAnotherConnectionHoldsTimesOut() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let holder = try await PostgresConnectionHandle.open(url, logger: Self.logger)
        defer { Task { await holder.close() } }
        try await holder.connection.query("SELECT pg_advisory_lock(4242)", logger: Self.logger)
        try await Self.withDatabase(url: url, deadline: .seconds(1)) { database in
            let error = await Self.error { try await Self.query(database, "SELECT pg_advisory_xact_lock(4242)") }
            #expect(error == .timedOut(after: .seconds(1)))
            await holder.close()
        }
    }

    @Test func aBurstOfTimeoutsOpensOneProbeConnection() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let holder = try await PostgresConnectionHandle.open(url, logger: Self.logger)
        defer { Task { await holder.close() } }
        try await holder.connection.query("SELECT pg_advisory_lock(4243)", logger: Self.logger)
        try await Self.withDatabase(url: url, deadline: .seconds(1)) { database in
            let errors = await withTaskGroup(of: StoreError?.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        await Self.error { try await Self.query(database, "SELECT pg_advisory_xact_lock(4243)") }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(errors.allSatisfy { $0 == .timedOut(after: .seconds(1)) }, "\(errors)")
            #expect(database.probesRun == 1)
            await holder.close()
        }
    }

    @Test func aStoppedDatabaseIsUnavailable() async throws {
        let cluster = try await PrivateCluster.start()
        defer { cluster.destroy() }
        try await Self.withDatabase(url: cluster.url, deadline: .seconds(5)) { database in
            try await Self.query(database, "SELECT 1")
            try cluster.embedded.stop()
            defer { _ = try? cluster.embedded.start() }
            guard case .unavailable = await Self.error(of: { try await Self.query(database, "SELECT 1") }) else {
                Issue.record("a stopped database must be unavailable")
                return
            }
        }
    }

    /// A database that accepts connections but answers nothing (its processes are frozen) is unavailable,
    /// not slow: the probe gets no answer either.
    @Test func aDatabaseThatHangsIsUnavailable() async throws {
        let cluster = try await PrivateCluster.start()
        defer { cluster.destroy() }
        try await Self.withDatabase(url: cluster.url, deadline: .seconds(5), probeTimeout: .seconds(2)) { database in
            try await Self.query(database, "SELECT 1")
            try cluster.embedded.signalAllProcesses(SIGSTOP)
            let error: StoreError?
            do {
                defer { try? cluster.embedded.signalAllProcesses(SIGCONT) }
                let start = ContinuousClock.now
                error = await Self.error { try await Self.query(database, "SELECT 1") }
                #expect(ContinuousClock.now - start < .seconds(15), "the probe is bounded")
            }
            guard case .unavailable = error else {
                Issue.record("a hung database must be unavailable, got \(String(describing: error))")
                return
            }
        }
    }

    /// A call that waits out an outage and runs out of time just after the database came back waited on the
    /// outage, not on a slow database: unavailable (503), as the SIGKILL drill requires, not timed out (504).
    @Test func aCallThatOutlastsAnOutageIsUnavailable() async throws {
        let cluster = try await PrivateCluster.start()
        defer { cluster.destroy() }
        try await Self.withDatabase(url: cluster.url, deadline: .seconds(4)) { database in
            // The server always follows the store's events; its listener is what notices the outage.
            let listener = Task {
                for await _ in database.events(logger: Self.logger) {}
            }
            defer { listener.cancel() }
            try await Self.query(database, "SELECT 1")
            try cluster.embedded.stop()
            let restart = Task {
                try await Task.sleep(for: .seconds(2))
                _ = try cluster.embedded.start()
            }
            let error = await Self.error { try await Self.query(database, "SELECT pg_sleep(10)") }
            try await restart.value
            guard case .unavailable = error else {
                Issue.record("a call that outlasted an outage must be unavailable, got \(String(describing: error))")
                return
            }
        }
    }
}
