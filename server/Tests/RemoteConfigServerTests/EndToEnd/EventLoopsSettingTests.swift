import Foundation
import RemoteConfigTestSupport
import Testing

/// `--event-loops` / `RC_EVENT_LOOPS`: how many event loops serve connections (one per core by default).
@Suite struct EventLoopsSettingTests {
    /// The names of the process's threads.
    func threadNames(_ pid: pid_t) throws -> [String] {
        let tasks = "/proc/\(pid)/task"
        return try FileManager.default.contentsOfDirectory(atPath: tasks).compactMap { task in
            try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    @Test("a count that is not a whole number from 1 to 256 stops start-up with one line naming the setting")
    func badCountStopsStartUp() async throws {
        let cases: [([String], [String: String])] = [
            (["--event-loops", "0"], [:]), (["--event-loops", "257"], [:]), ([], ["RC_EVENT_LOOPS": "many"]),
        ]
        for (arguments, environment) in cases {
            let server = try ServerProcess(
                ["serve", "--database-url", "postgres://x@127.0.0.1:1/x"] + arguments, environment: environment)
            let status = try await server.waitForExit(timeout: .seconds(60))
            #expect(status >= 1)
            let lines = server.output.split(separator: "\n").filter { $0.contains("error") }
            #expect(lines.count == 1, "expected one error line in:\n\(server.output)")
            #expect(lines.first?.contains("--event-loops / RC_EVENT_LOOPS") == true)
        }
    }

    @Test("the server runs as many event loops as asked, from the flag or the variable, and answers")
    func countIsHonoured() async throws {
        let url = ServeCommandTests.urlText(try await TestCluster.shared.makeDatabase())
        for (arguments, environment, loops) in [
            (["--event-loops", "1"], [String: String](), 1), ([], ["RC_EVENT_LOOPS": "3"], 3),
        ] {
            let server = try ServerProcess(
                ["serve", "--port", "0", "--database-url", url] + arguments,
                environment: environment.merging(["RC_LOG_LEVEL": "warning"]) { $1 })
            defer { server.signal(SIGKILL) }
            let port = try await server.waitUntilListening()
            #expect(try await HTTP.request("GET", "http://127.0.0.1:\(port)/healthz").status == 200)
            // NIO names the threads of its shared event loop group `NIO-SGLTN-<group>-#<loop>`.
            #expect(try threadNames(server.pid).filter { $0.hasPrefix("NIO-SGLTN-") }.count == loops)
        }
    }
}
