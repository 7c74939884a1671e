import ArgumentParser
import Foundation
import Logging
import RemoteConfigServer
import RemoteConfigStore

/// `remote-config`: the server, its maintenance commands, and the admin client.
@main
struct RemoteConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote-config",
        abstract: "Self-hosted Remote Config: typed parameters, conditions, versions and realtime updates.",
        discussion: helpText(
            [
                "Admin commands talk to a running server: --server (RC_SERVER, default http://127.0.0.1:8080) and --token (RC_TOKEN), or the personal token `remote-config login` saved. Exit status: 0 ok, 1 wrong usage, 2 invalid (400), 3 conflict (409/412, or a file pulled at an older version), 4 key refused (401/403), 5 server unreachable or 503, 6 not found."
            ],
            "remote-config template get -p my-app -o config.json"),
        subcommands: [
            Serve.self, Migrate.self, Projects.self, Keys.self, Template.self, Promote.self, Changes.self,
            Insights.self,
            Webhooks.self, Rollouts.self, StoreSyncCommand.self, Login.self, Logout.self, WhoAmI.self,
            RoleBindings.self, Secrets.self, MCPCommand.self,
        ],
        defaultSubcommand: Serve.self
    )

    /// ArgumentParser's own entry point, except that wrong usage exits 1 (as API.md says) rather than 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}

/// Prints one line naming what is wrong and exits with status 1.
func fail(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("remote-config: error: \(message)\n".utf8))
    return ExitCode(1)
}
