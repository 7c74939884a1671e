import Foundation
import RemoteConfigStore

/// The built `remote-config` binary run once as an admin client: its exit status, stdout and stderr apart.
public struct CommandLineRun: Sendable, CustomStringConvertible {
    public let arguments: [String]
    public let status: Int32
    public let stdout: String
    public let stderr: String

    public var description: String {
        "remote-config \(arguments.joined(separator: " ")) → \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
    }

    /// Runs `remote-config arguments` with `environment` added to a copy of ours without `RC_*`, and waits for
    /// it to exit. stderr is a file, not a terminal, as in CI.
    /// `executable` runs something else (a wrapper such as `script`) in the same way.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(60),
        executable: String = ServerProcess.executable
    ) async throws -> CommandLineRun {
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RC_") }
        merged.merge(environment) { $1 }
        let base = NSTemporaryDirectory() + "rc-cli-\(UUID().uuidString)"
        defer {
            unlink(base + ".out")
            unlink(base + ".err")
        }
        let pid = try ProcessRunner.spawn(
            [executable] + arguments, outputPath: base + ".out", errorPath: base + ".err",
            environment: merged)
        let deadline = ContinuousClock.now + timeout
        var status: Int32?
        while status == nil {
            status = ProcessRunner.exitStatus(pid)
            if status == nil {
                guard ContinuousClock.now < deadline else {
                    kill(pid, SIGKILL)
                    _ = ProcessRunner.waitForExit(pid)
                    throw ServerProcess.Failure("remote-config \(arguments) did not exit within \(timeout)")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        return CommandLineRun(
            arguments: arguments, status: status!,
            stdout: (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? "")
    }
}

/// `--json` output read as a reply: `value` is stdout parsed, `decode(_:)` reads it as one of the API's bodies.
extension CommandLineRun: JSONReply {
    /// The standard output.
    public var body: Data { Data(stdout.utf8) }
}
