import Crypto
import Foundation
import Logging
import RemoteConfigCore

/// A private PostgreSQL cluster started from the machine's own binaries, listening on a unix socket only.
///
/// PostgreSQL refuses to run as root, so when this process is root the cluster belongs to the `postgres`
/// system user (Debian's package creates it) and every server program runs through `runuser`.
public final class EmbeddedPostgres: Sendable {
    /// Why the cluster could not be started.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    public let binaries: PostgresBinaries
    /// The folder given by `--data-dir`.
    public let dataDirectory: String
    /// Where the cluster lives: `<data-dir>/postgres` unless that is out of the server user's reach.
    public let clusterDirectory: String
    /// The folder of the unix socket.
    public let socketDirectory: String
    /// The user the server programs run as; nil when they run as this process's user.
    public let serverUser: String?
    let durable: Bool
    let logger: Logger

    /// The database the server uses inside the cluster.
    public static let databaseName = "remote_config"
    /// The cluster's superuser.
    public static let superuser = "postgres"

    /// Prepares (does not start) a cluster under `dataDirectory`; `durable: false` turns fsync off, for tests.
    public init(dataDirectory: String, binaries: PostgresBinaries, durable: Bool = true, logger: Logger) throws {
        self.binaries = binaries
        self.logger = logger
        self.durable = durable
        let absolute = URL(fileURLWithPath: dataDirectory).standardizedFileURL.path
        self.dataDirectory = absolute
        do {
            try FileManager.default.createDirectory(atPath: absolute, withIntermediateDirectories: true)
        } catch {
            throw StartError(description: "cannot create the data dir \(absolute): \(error.localizedDescription)")
        }
        let user: String? = geteuid() == 0 ? Self.unprivilegedUser() : nil
        self.serverUser = user
        var cluster = absolute + "/postgres"
        if let user, !Self.canReach(absolute, as: user) {
            // The data dir sits below a folder the server user cannot enter (say /root): keep the cluster in a
            // stable place it can reach, named after the data dir, so data still survives restarts.
            let digest = SHA256.hash(data: Data(absolute.utf8)).prefix(8).hexEncoded
            cluster = "/var/lib/remote-config/\(digest)"
            logger.notice("the \(user) user cannot reach \(absolute); keeping the PostgreSQL cluster in \(cluster)")
        }
        self.clusterDirectory = cluster
        // A unix socket path must stay under ~107 bytes.
        let socket = cluster + "/socket"
        if socket.utf8.count + 16 > 100 {
            self.socketDirectory = "/tmp/rc-pg-" + String(UUID().uuidString.prefix(8)).lowercased()
        } else {
            self.socketDirectory = socket
        }
    }

    private var pgData: String { clusterDirectory + "/data" }
    private var logFile: String { clusterDirectory + "/server.log" }

    /// The URL of the cluster's `remote_config` database, in the `?host=` socket form.
    public var databaseURL: String {
        DatabaseURL.unixSocket(directory: socketDirectory, username: Self.superuser, database: Self.databaseName)
    }

    /// Initialises the cluster when new, starts it (or adopts one left running), and returns the database URL.
    public func start() throws -> String {
        try prepareDirectories()
        if !FileManager.default.fileExists(atPath: pgData + "/PG_VERSION") {
            logger.info("initialising a PostgreSQL cluster in \(pgData)")
            var arguments = ["-D", pgData, "-U", Self.superuser, "-A", "trust", "-E", "UTF8", "--no-locale"]
            if !durable { arguments.append("--no-sync") }
            try run(binaries.initdb, arguments)
        }
        if isRunning() {
            logger.notice("adopting the PostgreSQL server already running on \(pgData)")
        } else {
            var options = "-k \(socketDirectory) -c listen_addresses='' -c unix_socket_permissions=0700"
            if !durable {
                // Test clusters: many databases and servers at once (the whole suite peaks above 400 connections),
                // nothing worth syncing.
                options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=1000"
            }
            try run(binaries.pgCtl, ["-D", pgData, "-l", logFile, "-w", "-t", "60", "-o", options, "start"])
        }
        return databaseURL
    }

    /// Stops the cluster and waits until every server process has gone.
    public func stop() throws {
        guard isRunning() else { return }
        try run(binaries.pgCtl, ["-D", pgData, "-m", "fast", "-w", "-t", "60", "stop"])
    }

    /// Stops the cluster without a checkpoint: for throwaway test clusters.
    public func stopImmediately() {
        _ = try? run(binaries.pgCtl, ["-D", pgData, "-m", "immediate", "-w", "stop"])
    }

    /// Whether a server runs on this cluster's data.
    public func isRunning() -> Bool {
        guard FileManager.default.fileExists(atPath: pgData + "/postmaster.pid") else { return false }
        return (try? run(binaries.pgCtl, ["-D", pgData, "status"])) != nil
    }

    @discardableResult
    private func run(_ executable: String, _ arguments: [String]) throws -> String {
        do {
            return try ProcessRunner.run(executable, arguments, as: serverUser)
        } catch let failure as ProcessRunner.Failure {
            throw StartError(description: failure.description + " (log: \(logFile))")
        }
    }

    private func prepareDirectories() throws {
        let fileManager = FileManager.default
        for directory in [clusterDirectory, socketDirectory] {
            do {
                try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try fileManager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
                if let serverUser {
                    try ProcessRunner.run("/bin/chown", [serverUser + ":", directory])
                }
            } catch {
                throw StartError(description: "cannot prepare \(directory): \(error)")
            }
        }
    }

    /// The user that owns the cluster when we are root: `postgres` (Debian), else `nobody`.
    private static func unprivilegedUser() -> String {
        getpwnam("postgres") != nil ? "postgres" : "nobody"
    }

    private static func canReach(_ directory: String, as user: String) -> Bool {
        (try? ProcessRunner.run("/usr/bin/test", ["-x", directory], as: user)) != nil
    }
}
