import Foundation
import Logging
import PostgresNIO
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// A bad setting stops start-up with one line naming it, and a non-zero exit status.
@Suite struct StartupErrorTests {
    /// Runs the binary, expects a failing exit, and returns the error line.
    func failure(_ arguments: [String], environment: [String: String] = [:]) async throws -> String {
        let server = try ServerProcess(arguments, environment: environment)
        let status = try await server.waitForExit(timeout: .seconds(60))
        #expect(status >= 1)
        let lines = server.output.split(separator: "\n").filter { $0.contains("error") }
        #expect(lines.count == 1, "expected one error line in:\n\(server.output)")
        return lines.first.map(String.init) ?? ""
    }

    @Test func portOutOfRange() async throws {
        let line = try await failure(["serve", "--port", "70000", "--database-url", "postgres://x@127.0.0.1:1/x"])
        #expect(line.contains("--port") && line.contains("RC_PORT") && line.contains("70000"))
        let fromEnvironment = try await failure(
            ["serve", "--database-url", "postgres://x@127.0.0.1:1/x"], environment: ["RC_PORT": "-1"])
        #expect(fromEnvironment.contains("RC_PORT"))
    }

    @Test func unreachableDatabase() async throws {
        let line = try await failure(["serve", "--port", "0", "--database-url", "postgres://nobody@127.0.0.1:1/none"])
        #expect(line.contains("RC_DATABASE_URL") && line.contains("cannot reach"))
        let malformed = try await failure(["serve", "--port", "0"], environment: ["RC_DATABASE_URL": "mysql://x/y"])
        #expect(malformed.contains("RC_DATABASE_URL"))
    }

    @Test func unwritableDataDirectory() async throws {
        let line = try await failure(["serve", "--port", "0", "--data-dir", "/dev/null/remote-config"])
        #expect(line.contains("--data-dir") && line.contains("RC_DATA_DIR"))
    }

    @Test func missingPostgresBinaries() async throws {
        let empty = NSTemporaryDirectory() + "rc-nobin-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let line = try await failure(
            ["serve", "--port", "0", "--data-dir", empty + "/data"], environment: ["RC_POSTGRES_BIN_DIR": empty])
        #expect(line.contains("PostgreSQL server binaries") && line.contains("apt-get install"))
    }

    @Test func badLogLevel() async throws {
        let line = try await failure(
            ["serve", "--database-url", "postgres://x@127.0.0.1:1/x"], environment: ["RC_LOG_LEVEL": "loud"])
        #expect(line.contains("RC_LOG_LEVEL"))
    }

    @Test func badStoreLookupURL() async throws {
        let line = try await failure(
            ["serve", "--database-url", "postgres://x@127.0.0.1:1/x", "--store-lookup-url", "itunes.apple.com/lookup"])
        #expect(line.contains("--store-lookup-url") && line.contains("RC_STORE_LOOKUP_URL"))
        let fromEnvironment = try await failure(
            ["serve", "--database-url", "postgres://x@127.0.0.1:1/x"], environment: ["RC_STORE_LOOKUP_URL": "ftp://x/y"]
        )
        #expect(fromEnvironment.contains("RC_STORE_LOOKUP_URL"))
    }

    @Test("a first start that cannot save its admin token stops, names the file, and makes no token valid")
    func adminTokenCannotBeSaved() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let dataDir = ServeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        // A folder where the file should go: no mode or user makes that writable.
        try FileManager.default.createDirectory(atPath: dataDir + "/admin-token", withIntermediateDirectories: true)
        let arguments = [
            "serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url), "--data-dir", dataDir,
        ]
        let server = try ServerProcess(arguments)
        let status = try await server.waitForExit(timeout: .seconds(60))
        #expect(status >= 1)
        let lines = server.output.split(separator: "\n").filter { $0.contains("error: ") }
        #expect(lines.count == 1, "expected one error line in:\n\(server.output)")
        let line = lines.first.map(String.init) ?? ""
        #expect(line.contains(dataDir + "/admin-token") && line.contains("cannot save"))
        #expect(!server.output.contains("rc_admin_"), "a token it could not save was shown")

        // Nothing was made valid: once the way is clear, the next start still generates and saves a token.
        try FileManager.default.removeItem(atPath: dataDir + "/admin-token")
        let next = try ServerProcess(arguments)
        _ = try await next.waitUntilListening()
        let token = try String(contentsOfFile: dataDir + "/admin-token", encoding: .utf8)
        #expect(token.hasPrefix("rc_admin_") && next.output.contains(token.trimmingCharacters(in: .newlines)))
        next.signal(SIGTERM)
        #expect(try await next.waitForExit() == 0)
    }

    @Test func editedMigrationStopsStartUp() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let logger = Logger(label: "test")
        _ = try await PostgresConnectionHandle.with(url, logger: logger) { handle in
            try await handle.connection.query(
                "UPDATE schema_migrations SET checksum = 'tampered' WHERE name = '001_init.sql'", logger: logger)
        }
        let line = try await failure(["serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url)])
        #expect(line.contains("001_init.sql") && line.contains("edited"))
    }
}
