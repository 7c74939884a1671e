import ArgumentParser
import Foundation
import RemoteConfigServer
import RemoteConfigStore

/// Options `serve` and `migrate` share.
struct SharedOptions: ParsableArguments {
    @Option(help: "PostgreSQL URL (RC_DATABASE_URL or DATABASE_URL). Without it, serve starts an embedded PostgreSQL.")
    var databaseURL: String?

    /// The flag, else `RC_DATABASE_URL`, else `DATABASE_URL`.
    var resolvedDatabaseURL: String? {
        let environment = ProcessInfo.processInfo.environment
        let value = databaseURL ?? environment["RC_DATABASE_URL"] ?? environment["DATABASE_URL"]
        return value?.isEmpty == true ? nil : value
    }
}
