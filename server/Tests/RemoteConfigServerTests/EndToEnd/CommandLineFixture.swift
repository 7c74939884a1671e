import Foundation
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport

extension CommandLineTests {
    /// A running server on a fresh database, its admin token, and a folder for template files.
    final class Fixture: Sendable {
        let server: ServerProcess
        let base: String
        let folder: String

        init() async throws {
            let url = try await TestCluster.shared.makeDatabase()
            server = try ServerProcess(
                ["serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url)],
                environment: ["RC_ADMIN_TOKEN": CommandLineTests.token])
            base = "http://127.0.0.1:\(try await server.waitUntilListening())"
            folder = NSTemporaryDirectory() + "rc-cli-files-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }

        /// Runs `remote-config arguments` against this server (`RC_SERVER`, `RC_TOKEN`).
        func cli(_ arguments: String..., token: String = CommandLineTests.token, environment: [String: String] = [:])
            async throws -> CommandLineRun
        {
            try await run(arguments, token: token, environment: environment)
        }

        func run(_ arguments: [String], token: String = CommandLineTests.token, environment: [String: String] = [:])
            async throws -> CommandLineRun
        {
            var variables = ["RC_SERVER": base, "RC_TOKEN": token]
            variables.merge(environment) { $1 }
            return try await CommandLineRun.run(arguments, environment: variables)
        }

        func path(_ name: String) -> String { folder + "/" + name }

        /// The JSON file `name` of the folder, members in the file's order.
        func readJSON(_ name: String) throws -> JSONValue {
            try JSONValue(parsing: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name)))))
        }

        /// Writes `value` to the file `name` of the folder, indented as a person keeps it in git.
        func writeJSON(_ value: JSONValue, _ name: String) throws {
            try Data(value.prettyJSONBytes()).write(to: URL(fileURLWithPath: path(name)))
        }

        /// The published template as the API answers it.
        func published(_ project: String) async throws -> JSONValue {
            try await HTTP.request(
                "GET", base + "/v1/projects/\(project)/remoteConfig",
                headers: ["Authorization": "Bearer \(CommandLineTests.token)"]
            ).value
        }

        func stop() async {
            await server.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// A loopback port nothing listens on: bound to learn a free number, then closed.
    static func closedPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
