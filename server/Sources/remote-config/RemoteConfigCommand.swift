import ArgumentParser
import Foundation
import Logging
import RemoteConfigServer
import RemoteConfigStore

/// `remote-config`: the server and its maintenance commands.
@main
struct RemoteConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote-config",
        abstract: "Self-hosted Remote Config: typed parameters, conditions, versions and realtime updates.",
        subcommands: [Serve.self, Migrate.self],
        defaultSubcommand: Serve.self
    )
}

/// Prints one line naming what is wrong and exits with status 1.
func fail(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("remote-config: error: \(message)\n".utf8))
    return ExitCode(1)
}
