import Foundation
import RemoteConfigStore

extension EmbeddedPostgres {
    /// Stops every process of the running cluster with SIGSTOP (or resumes them with SIGCONT): the socket
    /// still accepts connections, but nothing answers, as with a database host that hangs.
    public func signalAllProcesses(_ signal: Int32) throws {
        let pidFile = try String(contentsOfFile: clusterDirectory + "/data/postmaster.pid", encoding: .utf8)
        guard let postmaster = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        var pids = [postmaster]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After the command name: state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == postmaster { pids.append(pid) }
        }
        for pid in pids { kill(pid, signal) }
    }
}
