import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The built `remote-config` binary run as a child process, for end-to-end tests.
///
/// Spawned with `posix_spawn` and watched with `waitpid` (see `ProcessRunner`); its output goes to a file.
public final class ServerProcess: Sendable {
    public let pid: pid_t
    private let outputPath: String
    private let exit = ExitBox()

    private final class ExitBox: @unchecked Sendable {
        // Guarded by `lock`.
        private let lock = NSLock()
        private var status: Int32?
        func get(_ pid: pid_t) -> Int32? {
            lock.withLock {
                if status == nil { status = ProcessRunner.exitStatus(pid) }
                return status
            }
        }
    }

    /// The binary next to the test bundle (SwiftPM builds every product before `swift test` runs).
    public static var executable: String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("remote-config")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue
            {
                return candidate.path
            }
            directory.deleteLastPathComponent()
        }
        return FileManager.default.currentDirectoryPath + "/.build/debug/remote-config"
    }

    /// Starts `remote-config` with `arguments`; `environment` is added to a copy of ours without `RC_*`, with
    /// the suite's secrets key as `RC_SECRETS_KEY` unless `environment` sets that (empty for none).
    /// With `openFiles` (soft, hard) it runs under `prlimit --nofile=soft:hard` (util-linux).
    public init(_ arguments: [String], environment: [String: String] = [:], openFiles: (Int, Int)? = nil) throws {
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RC_") && $0.key != "DATABASE_URL" }
        merged["RC_SECRETS_KEY"] = TestSecrets.key
        merged.merge(environment) { $1 }
        outputPath = NSTemporaryDirectory() + "rc-server-\(UUID().uuidString).log"
        let limit = openFiles.map { ["/usr/bin/prlimit", "--nofile=\($0.0):\($0.1)", "--"] } ?? []
        pid = try ProcessRunner.spawn(
            limit + [Self.executable] + arguments, outputPath: outputPath, environment: merged)
    }

    deinit {
        if exit.get(pid) == nil {
            kill(pid, SIGKILL)
            _ = ProcessRunner.waitForExit(pid)
        }
        unlink(outputPath)
    }

    /// Everything the process printed so far (stdout and stderr).
    public var output: String {
        (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// Whether the process still runs.
    public var isRunning: Bool { exit.get(pid) == nil }

    /// Waits for the "listening on" line and returns the port.
    public func waitUntilListening(timeout: Duration = .seconds(60)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let match = output.firstMatch(of: /listening on http:\/\/[^:]+:(\d+)/), let port = Int(match.1) {
                return port
            }
            if let status = exit.get(pid) {
                throw Failure("the server exited with \(status) before listening:\n\(output)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure("the server did not listen within \(timeout):\n\(output)")
    }

    /// Waits for the process to exit and returns its status.
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(60)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let status = exit.get(pid) { return status }
            guard ContinuousClock.now < deadline else {
                kill(pid, SIGKILL)
                throw Failure("the server did not exit within \(timeout):\n\(output)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Sends a signal (SIGTERM by default).
    public func signal(_ signal: Int32 = SIGTERM) {
        kill(pid, signal)
    }

    /// Stops the process if it still runs (for test clean-up).
    public func stop() async {
        guard isRunning else { return }
        signal(SIGTERM)
        _ = try? await waitForExit(timeout: .seconds(30))
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }
}

/// A minimal HTTP client for end-to-end tests.
public enum HTTP {
    /// One response: status, headers (lowercased names) and body.
    public struct Reply: Sendable, JSONReply {
        public let status: Int
        public let headers: [String: String]
        public let body: Data

    }

    /// Sends one request.
    public static func request(
        _ method: String, _ url: String, headers: [String: String] = [:], body: Data? = nil
    ) async throws -> Reply {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.timeoutInterval = 30
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = body
            if headers["Content-Type"] == nil {
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            fields["\(name)".lowercased()] = "\(value)"
        }
        return Reply(status: http.statusCode, headers: fields, body: data)
    }

    /// The bytes of `value`, member order kept.
    public static func json(_ value: JSONValue) -> Data {
        Data(value.jsonBytes())
    }

    /// The bytes of `body`, one of the API's bodies, encoded as the server writes JSON (`APIEncoder`).
    public static func encoded(_ body: some Encodable) throws -> Data {
        Data(try APIEncoder.bytes(body))
    }

}
