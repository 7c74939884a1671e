import ArgumentParser
import Foundation
import RemoteConfigStore

/// Where the secrets key comes from: `--secrets-key-file`, else `RC_SECRETS_KEY`, else `<data-dir>/secrets-key`.
struct SecretsKeyOptions: ParsableArguments {
    @Option(
        help:
            "File holding the key that seals stored secrets, 32 random bytes in base64 (RC_SECRETS_KEY holds the key itself; default <data-dir>/secrets-key, made on the first start)."
    )
    var secretsKeyFile: String?

    /// The setting's name in every line about it.
    static let setting = "--secrets-key-file / RC_SECRETS_KEY"

    /// The key given, or the data dir's (made, readable by its owner only, when `create` and there is none).
    /// Each failure is one line naming the setting.
    func resolve(dataDirectory: String, create: Bool) throws -> (sealer: SecretSealer, source: String) {
        let environment = ProcessInfo.processInfo.environment
        if let path = secretsKeyFile {
            return (try Self.sealer(try Self.read(path), from: path), path)
        }
        if let text = environment["RC_SECRETS_KEY"], !text.isEmpty {
            return (try Self.sealer(text, from: "RC_SECRETS_KEY"), "RC_SECRETS_KEY")
        }
        let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent("secrets-key").path
        if !FileManager.default.fileExists(atPath: path) {
            guard create else {
                throw fail("\(Self.setting): none given, and there is no \(path) (--data-dir / RC_DATA_DIR)")
            }
            do {
                try SecretsKeyFile.create(at: path)
            } catch {
                throw fail("\(Self.setting): none given, and \(path) cannot be made: \(error)")
            }
        }
        return (try Self.sealer(try Self.read(path), from: path), path)
    }

    static func read(_ path: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw fail("\(setting): cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// The sealer of `text`; a line saying what is wrong with it, never the text itself.
    static func sealer(_ text: String, from source: String) throws -> SecretSealer {
        do {
            return try SecretSealer(base64: text)
        } catch {
            throw fail("\(setting): \(source) \(error)")
        }
    }
}

/// A secrets key file, made once: 32 random bytes in base64, mode 0600 from the moment it exists.
enum SecretsKeyFile {
    /// Writes a new key to `path` unless a file is there already (another server sharing the data dir made it
    /// first: both then use that one). Written under a name of its own and linked into place, so nobody reads a
    /// key half written.
    static func create(at path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let partial = path + ".\(getpid()).partial"
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw Failure(errno) }
        defer { unlink(partial) }
        let bytes = Array((SecretSealer.newKey() + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, synced == 0 else { throw Failure(written < 0 || synced != 0 ? errno : EIO) }
        guard link(partial, path) == 0 || errno == EEXIST else { throw Failure(errno) }
    }

    struct Failure: Error, CustomStringConvertible {
        let code: Int32
        init(_ code: Int32) { self.code = code }
        var description: String { String(cString: strerror(code)) }
    }
}
