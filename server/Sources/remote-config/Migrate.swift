import ArgumentParser
import Logging
import RemoteConfigServer
import RemoteConfigStore

/// `remote-config migrate`: applies the migrations of `sql/` and exits.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply database migrations and exit.",
        discussion: helpText([], "remote-config migrate --database-url postgres://rc@db:5432/rc"))

    @OptionGroup var options: SharedOptions

    func run() async throws {
        guard let text = options.resolvedDatabaseURL else {
            throw fail("--database-url / RC_DATABASE_URL: required for migrate")
        }
        let logger = Logger(label: "remote-config")
        try await migrateOrFail(try prepareDatabase(text), logger: logger)
        Console.line("migrations up to date")
    }
}
