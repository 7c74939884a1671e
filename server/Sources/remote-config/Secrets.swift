import ArgumentParser
import Foundation
import Logging
import RemoteConfigServer
import RemoteConfigStore

/// `remote-config secrets`: the key that seals the secrets the database keeps.
struct Secrets: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the key that seals stored secrets.",
        subcommands: [RotateKey.self])

    /// `remote-config secrets rotate-key`: every secret sealed again under a new key, in one transaction.
    struct RotateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-key",
            abstract: "Seal every stored secret again under a new key, in one transaction.",
            discussion: helpText(
                [
                    "The current key comes from --secrets-key-file, RC_SECRETS_KEY or <data-dir>/secrets-key, as for serve. Stop the servers first, and start every one with the new key after: one still running with the old key can no longer read or write secrets."
                ],
                "remote-config secrets rotate-key --database-url postgres://rc@db:5432/rc --new-key-file new-key"))

        @OptionGroup var options: SharedOptions

        @OptionGroup var key: SecretsKeyOptions

        @Option(
            help:
                "Folder whose secrets-key is the current key when none is given (RC_DATA_DIR; default ./.remote-config)."
        )
        var dataDir: String?

        @Option(help: "File holding the new key: 32 random bytes in base64 (openssl rand -base64 32 > FILE).")
        var newKeyFile: String

        func run() async throws {
            guard let text = options.resolvedDatabaseURL else {
                throw fail("--database-url / RC_DATABASE_URL: required for secrets rotate-key")
            }
            let directory = dataDir ?? ProcessInfo.processInfo.environment["RC_DATA_DIR"] ?? "./.remote-config"
            let (current, source) = try key.resolve(dataDirectory: directory, create: false)
            let new = try SecretsKeyOptions.sealer(try SecretsKeyOptions.read(newKeyFile), from: newKeyFile)
            guard !new.isSameKey(as: current) else {
                throw fail("--new-key-file: \(newKeyFile) holds the current key (\(source))")
            }
            let url = try prepareDatabase(text)
            let logger = Logger(label: "remote-config")
            try await migrateOrFail(url, logger: logger)
            let count: Int
            do {
                count = try await ServerSecrets.rotate(url, from: current, to: new, logger: logger)
            } catch is SecretsKeyMismatch {
                throw fail(
                    "\(SecretsKeyOptions.setting): the current key (\(source)) is not this database's: its secrets "
                        + "are sealed under another key; nothing changed")
            } catch {
                throw fail("secrets rotate-key: \(error); nothing changed")
            }
            Console.line(
                "re-encrypted \(count) secrets under the key of \(newKeyFile); start every server with it "
                    + "(--secrets-key-file \(newKeyFile), or RC_SECRETS_KEY)")
        }
    }
}
