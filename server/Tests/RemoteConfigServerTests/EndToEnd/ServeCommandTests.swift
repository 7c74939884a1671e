import Foundation
import RemoteConfigAPI
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// The built binary, as a newcomer runs it: embedded PostgreSQL, restarts, signals, bootstrap token.
@Suite(.serialized) struct ServeCommandTests {
    static func temporaryDirectory() -> String {
        NSTemporaryDirectory() + "rc-e2e-\(UUID().uuidString.prefix(8))"
    }

    /// Whether any postgres process still serves `dataDirectory`'s cluster.
    static func postgresRunning(under dataDirectory: String) -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries where Int(entry) != nil {
            guard let command = try? String(contentsOfFile: "/proc/\(entry)/cmdline", encoding: .utf8) else { continue }
            if command.contains("postgres"), command.contains(dataDirectory) { return true }
        }
        return false
    }

    @Test func embeddedDatabaseSurvivesRestartAndStopsCleanly() async throws {
        let dataDir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dataDir) }

        // First start: no token configured, so one is generated, printed once and saved 0600.
        let first = try ServerProcess(["serve", "--port", "0", "--data-dir", dataDir])
        let port = try await first.waitUntilListening()
        let tokenFile = dataDir + "/admin-token"
        let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("rc_admin_"))
        #expect(first.output.contains(token))
        let mode = try FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let urlFile = try String(contentsOfFile: dataDir + "/database-url", encoding: .utf8)
        #expect(urlFile.hasPrefix("postgres://") && urlFile.contains("?host=/"))

        let base = "http://127.0.0.1:\(port)"
        #expect(try await HTTP.request("GET", base + "/healthz").status == 200)
        #expect(try await HTTP.request("GET", base + "/readyz").status == 200)
        let created = try await HTTP.request(
            "POST", base + "/v1/projects", headers: ["Authorization": "Bearer \(token)"],
            body: HTTP.json(["projectId": "kept-app", "displayName": "Kept"]))
        #expect(created.status == 201)

        first.signal(SIGTERM)
        #expect(try await first.waitForExit() == 0)
        #expect(!Self.postgresRunning(under: dataDir), "postgres left running after SIGTERM")
        #expect(!FileManager.default.fileExists(atPath: dataDir + "/database-url"))

        // Second start: same data, the same token still works, no new token is printed; SIGINT stops it.
        let second = try ServerProcess(["serve", "--port", "0", "--data-dir", dataDir])
        let port2 = try await second.waitUntilListening()
        let read = try await HTTP.request(
            "GET", "http://127.0.0.1:\(port2)/v1/projects/kept-app", headers: ["Authorization": "Bearer \(token)"])
        #expect(read.status == 200)
        #expect(try read.decode(Project.self).displayName == "Kept")
        #expect(!second.output.contains("rc_admin_"))
        second.signal(SIGINT)
        #expect(try await second.waitForExit() == 0)
        #expect(!Self.postgresRunning(under: dataDir), "postgres left running after SIGINT")
    }

    @Test func configuredAdminTokenAndExternalDatabase() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let text = Self.urlText(url)
        let dataDir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let token = "rc_admin_fromTheEnvironment000000000000"
        let server = try ServerProcess(
            ["serve", "--port", "0", "--database-url", text],
            environment: ["RC_ADMIN_TOKEN": token, "RC_DATA_DIR": dataDir])
        let port = try await server.waitUntilListening()
        let reply = try await HTTP.request(
            "GET", "http://127.0.0.1:\(port)/v1/apiKeys", headers: ["Authorization": "Bearer \(token)"])
        #expect(reply.status == 200)
        #expect(!FileManager.default.fileExists(atPath: dataDir + "/postgres"), "no embedded cluster with a URL")
        server.signal(SIGTERM)
        #expect(try await server.waitForExit() == 0)
    }

    @Test func twoServersStartingTogetherOnAnEmptyDatabaseBothComeUp() async throws {
        let url = try await TestCluster.shared.makeEmptyDatabase()
        let text = Self.urlText(url)
        let environment = ["RC_ADMIN_TOKEN": "rc_admin_sharedToken00000000000000000000"]
        let one = try ServerProcess(["serve", "--port", "0", "--database-url", text], environment: environment)
        let two = try ServerProcess(["serve", "--port", "0", "--database-url", text], environment: environment)
        let ports = [try await one.waitUntilListening(), try await two.waitUntilListening()]
        for port in ports {
            #expect(try await HTTP.request("GET", "http://127.0.0.1:\(port)/readyz").status == 200)
        }
        one.signal(SIGTERM)
        two.signal(SIGTERM)
        #expect(try await one.waitForExit() == 0)
        #expect(try await two.waitForExit() == 0)
    }

    @Test func migrateCommandAppliesAndExits() async throws {
        let url = try await TestCluster.shared.makeEmptyDatabase()
        let migrate = try ServerProcess(["migrate", "--database-url", Self.urlText(url)])
        #expect(try await migrate.waitForExit() == 0)
        #expect(migrate.output.contains("001_init.sql"))
        let again = try ServerProcess(["migrate"], environment: ["RC_DATABASE_URL": Self.urlText(url)])
        #expect(try await again.waitForExit() == 0)
        #expect(!again.output.contains("001_init.sql"))
    }

    static func urlText(_ url: DatabaseURL) -> String {
        guard case .unixSocket(let path) = url.endpoint else { return "\(url)" }
        let directory = (path as NSString).deletingLastPathComponent
        return "postgres://\(url.username)@localhost:5432/\(url.database)?host=\(directory)"
    }
}
