import Logging
import PostgresNIO
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

@Suite struct MigratorTests {
    let logger = Logger(label: "test")

    @Test func appliesEachMigrationOnceInOrder() async throws {
        let url = try await TestCluster.shared.makeEmptyDatabase()
        try await PostgresConnectionHandle.with(url, logger: logger) { handle in
            let first = try await handle.migrate(logger: logger)
            #expect(first == (try Migration.bundled()).map(\.name))
            #expect(first.first == "001_init.sql")
            let second = try await handle.migrate(logger: logger)
            #expect(second.isEmpty)
            let rows = try await handle.connection.query(
                "SELECT name, checksum FROM schema_migrations ORDER BY name", logger: logger)
            var recorded: [String] = []
            for try await (name, checksum) in rows.decode((String, String).self) {
                recorded.append(name)
                #expect(checksum.count == 64)
            }
            #expect(recorded == first)
        }
    }

    @Test func anEditedAppliedMigrationStopsStartUp() async throws {
        let url = try await TestCluster.shared.makeEmptyDatabase()
        try await PostgresConnectionHandle.with(url, logger: logger) { handle in
            let original = [Migration(name: "001_a.sql", sql: "CREATE TABLE a (x int);")]
            try await Migrator.migrate(handle.connection, migrations: original, logger: logger)
            let edited = [Migration(name: "001_a.sql", sql: "CREATE TABLE a (x bigint);")]
            await #expect {
                try await Migrator.migrate(handle.connection, migrations: edited, logger: logger)
            } throws: { error in
                "\(error)".contains("001_a.sql") && "\(error)".contains("edited")
            }
        }
    }

    @Test func aFailingMigrationLeavesNothingBehind() async throws {
        let url = try await TestCluster.shared.makeEmptyDatabase()
        try await PostgresConnectionHandle.with(url, logger: logger) { handle in
            let broken = [Migration(name: "001_b.sql", sql: "CREATE TABLE b (x int); SELECT nonsense FROM nowhere;")]
            await #expect(throws: MigrationError.self) {
                try await Migrator.migrate(handle.connection, migrations: broken, logger: logger)
            }
            let rows = try await handle.connection.query(
                "SELECT count(*) FROM pg_tables WHERE tablename = 'b'", logger: logger)
            for try await count in rows.decode(Int.self) { #expect(count == 0) }
        }
    }

    @Test func concurrentMigratorsTakeTurns() async throws {
        let url = try await TestCluster.shared.makeEmptyDatabase()
        let logger = self.logger
        let results = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await PostgresConnectionHandle.with(url, logger: logger) { handle in
                        try await handle.migrate(logger: logger)
                    }
                }
            }
            return try await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        #expect(results.filter { !$0.isEmpty }.count == 1)
    }
}
