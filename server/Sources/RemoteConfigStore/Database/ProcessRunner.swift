import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a helper program to completion, as the current user or, when we are root, as another user.
///
/// Uses `posix_spawn` and `waitpid` directly: Foundation's `Process` can miss the exit of a child whose
/// own child (the postmaster forked by `pg_ctl`) lives on, and then waits forever.
public enum ProcessRunner {
    /// A program that exited with a non-zero status.
    public struct Failure: Error, CustomStringConvertible {
        public let command: String
        public let status: Int32
        public let output: String
        public var description: String {
            let tail = output.split(separator: "\n").suffix(3).joined(separator: " | ")
            return "`\(command)` exited with status \(status)\(tail.isEmpty ? "" : ": \(tail)")"
        }
    }

    /// The variables a helper program (initdb, pg_ctl, the postmaster it starts) inherits from ours: the few
    /// it needs and nothing else, so no secret (`RC_ADMIN_TOKEN`, a database password) reaches a process
    /// that a database superuser can read through `pg_read_binary_file('/proc/<pid>/environ')`.
    static let inheritedVariables = ["PATH", "TZ", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TMPDIR"]

    /// The minimal environment of helper programs (see `inheritedVariables`).
    static func helperEnvironment(
        from environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String: String] {
        var result = environment.filter { inheritedVariables.contains($0.key) }
        if result["PATH"] == nil { result["PATH"] = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" }
        return result
    }

    /// Runs `executable` with `arguments`, as `user` through `runuser` when one is given, in the minimal
    /// `helperEnvironment`, and returns its output.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], as user: String? = nil) throws -> String {
        var argv = [executable] + arguments
        if let user {
            let runuser =
                FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser")
                ? "/usr/sbin/runuser" : "/sbin/runuser"
            argv = [runuser, "-u", user, "--"] + argv
        }
        let outputPath = NSTemporaryDirectory() + "rc-run-\(UUID().uuidString).out"
        defer { unlink(outputPath) }
        let pid = try spawn(argv, outputPath: outputPath, environment: helperEnvironment())
        let status = waitForExit(pid)
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw Failure(command: argv.joined(separator: " "), status: status, output: output)
        }
        return output
    }

    /// Starts `argv` with stdin from /dev/null and stdout+stderr appended to `outputPath` (stderr to
    /// `errorPath` instead when one is given).
    public static func spawn(
        _ argv: [String], outputPath: String, errorPath: String? = nil, environment: [String: String]? = nil
    ) throws -> pid_t {
        #if canImport(Glibc)
            var actions = posix_spawn_file_actions_t()
        #else
            var actions: posix_spawn_file_actions_t? = nil
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if let errorPath {
            posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        closeInheritedDescriptors(&actions)
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        let environmentStrings = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let cEnvironment = environmentStrings.map { strdup($0) } + [nil]
        defer { for pointer in cEnvironment { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, argv[0], &actions, nil, cArguments, cEnvironment)
        guard result == 0 else {
            throw Failure(
                command: argv.joined(separator: " "), status: result, output: String(cString: strerror(result)))
        }
        return pid
    }

    #if canImport(Glibc)
        /// Makes the child keep only stdin, stdout and stderr. Without it a child inherits every descriptor
        /// not opened close-on-exec: the postmaster would hold the server's sockets, and a server started by
        /// a test would hold the test's hundreds of connections against its own open-files limit.
        /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34) is not in Swift's Glibc module: found at
        /// run time, and skipped on an older glibc.
        private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
            typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
            _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
        }
    #else
        private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t?) {}
    #endif

    /// Blocks until `pid` exits; returns its exit status (128 + signal when killed).
    public static func waitForExit(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            if errno != EINTR { return -1 }
        }
        return decode(status)
    }

    /// The exit status of `pid` if it has exited, without blocking.
    public static func exitStatus(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return result == -1 ? -1 : nil }
        return decode(status)
    }

    private static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
