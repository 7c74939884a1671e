import Foundation
import Logging
import RemoteConfigStore

/// Makes sure an admin can get in: the configured token, or on a first start a new one shown once.
struct AdminBootstrap {
    let keys: KeyStore
    let configuration: ServerConfiguration
    let logger: Logger

    func run() async throws {
        if let token = configuration.adminToken, !token.isEmpty {
            try await keys.ensureBootstrapAdmin(token: token)
            logger.info("admin key from RC_ADMIN_TOKEN is active")
            return
        }
        guard try await !keys.hasGlobalAdmin() else { return }
        let token = KeySecret.generate(role: .admin)
        let path = URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("admin-token").path
        try? FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        // Saved before it becomes valid: a token that could not be saved must not become the only way in.
        try Self.save(token, to: path)
        try await keys.ensureBootstrapAdmin(token: token)
        // Printed once, on purpose: this is how the first admin learns it. Never logged.
        Console.line("Admin token (shown once, also saved to \(path)): \(token)")
    }

    /// Writes `token` to `path`, readable by its owner only from the moment it exists.
    private static func save(_ token: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw SaveFailed(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        // An older file keeps its mode through O_CREAT: narrow it too.
        guard fchmod(descriptor, 0o600) == 0 else {
            throw SaveFailed(path: path, reason: String(cString: strerror(errno)))
        }
        let bytes = Array((token + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw SaveFailed(path: path, reason: written < 0 ? String(cString: strerror(errno)) : "short write")
        }
    }

    /// The admin token could not be saved: start-up stops, naming the file, before the token is made valid.
    struct SaveFailed: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String {
            "cannot save the generated admin token to \(path) (--data-dir / RC_DATA_DIR): \(reason); "
                + "fix the folder, or set RC_ADMIN_TOKEN"
        }
    }
}
