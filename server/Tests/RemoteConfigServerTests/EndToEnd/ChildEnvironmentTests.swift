import Foundation
import RemoteConfigTestSupport
import Testing

/// The embedded PostgreSQL runs with a minimal environment and no inherited descriptor: no secret of the
/// server's reaches a process that a database superuser can read (`pg_read_binary_file('/proc/<pid>/environ')`),
/// and neither the server nor PostgreSQL holds a descriptor of whoever started it.
@Suite struct ChildEnvironmentTests {
    /// The postmaster serving the cluster under `dataDirectory` and every process it started.
    static func postgresProcesses(under dataDirectory: String) throws -> [Int32] {
        let pidFile = try String(contentsOfFile: dataDirectory + "/postgres/data/postmaster.pid", encoding: .utf8)
        let postmaster = try #require(Int32(pidFile.split(separator: "\n").first ?? ""))
        var result = [postmaster]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // Fields after "(comm)": state, ppid, …
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == postmaster { result.append(pid) }
        }
        return result
    }

    /// A /proc file's bytes: they report size 0, so read until the end rather than by size.
    static func read(_ path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(fd, &chunk, chunk.count)
            guard count > 0 else { return result }
            result += chunk[0..<count]
        }
    }

    @Test func postgresProcessesGetNoSecret() async throws {
        let dataDir = NSTemporaryDirectory() + "rc-env-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let token = "rc_admin_mustNotReachPostgres0000000000"
        // A descriptor of ours that is not close-on-exec: neither the server nor PostgreSQL may inherit it.
        let marker = NSTemporaryDirectory() + "rc-env-marker-\(UUID().uuidString.prefix(8))"
        let markerFD = open(marker, O_CREAT | O_RDWR, 0o600)
        defer {
            close(markerFD)
            unlink(marker)
        }
        let server = try ServerProcess(
            ["serve", "--port", "0", "--data-dir", dataDir],
            environment: ["RC_ADMIN_TOKEN": token, "RC_LOG_LEVEL": "info", "UNRELATED_SECRET": "hunter2-secret"])
        _ = try await server.waitUntilListening()
        let processes = try Self.postgresProcesses(under: dataDir)
        #expect(processes.count >= 2, "the postmaster and its background processes")
        for pid in processes {
            let variables = Self.read("/proc/\(pid)/environ").split(separator: 0).map {
                String(decoding: $0, as: UTF8.self)
            }
            if pid == processes[0] {
                // Background processes overwrite this area with their title; the postmaster keeps it.
                #expect(variables.contains { $0.hasPrefix("PATH=") }, "the postmaster's environment is readable")
            }
            #expect(!variables.contains { $0.contains(token) }, "pid \(pid) holds the admin token")
            #expect(!variables.contains { $0.hasPrefix("RC_") }, "pid \(pid) holds an RC_ variable")
            #expect(!variables.contains { $0.contains("hunter2-secret") }, "pid \(pid) holds an unrelated variable")
        }
        for pid in [server.pid] + processes {
            let links = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).compactMap {
                try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
            }
            #expect(!links.contains(marker), "pid \(pid) inherited a descriptor of the test")
        }
        server.signal(SIGTERM)
        #expect(try await server.waitForExit() == 0)
    }
}
