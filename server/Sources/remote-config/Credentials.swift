import Foundation

/// The personal tokens `remote-config login` saves, one per server, in
/// `~/.config/remote-config/credentials` (`$XDG_CONFIG_HOME` when set), readable by its owner only.
struct Credentials: Codable {
    /// One server's saved sign-in.
    struct Entry: Codable {
        var token: String
        var email: String
        var expireTime: Date
    }

    var servers: [String: Entry] = [:]

    /// The file's path.
    static var path: String {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return base + "/remote-config/credentials"
    }

    /// The saved sign-ins; none when the file is missing or unreadable.
    static func load() -> Credentials {
        guard let data = FileManager.default.contents(atPath: path) else { return Credentials() }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode(Credentials.self, from: data)) ?? Credentials()
    }

    /// A server's URL as entries are keyed: lowercased scheme and host, no trailing slash.
    static func key(_ server: URL) -> String {
        var text = server.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text.lowercased()
    }

    /// Writes the file with mode 0600 from the moment it exists (the folder 0700).
    func save() throws {
        let path = Self.path
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let bytes = Array(try encoder.encode(self)) + [UInt8(ascii: "\n")]
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else {
            throw CommandFailure(.usage, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0,
            bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count
        else { throw CommandFailure(.usage, "cannot write \(path): \(String(cString: strerror(errno)))") }
    }
}
