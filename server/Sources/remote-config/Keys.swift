import ArgumentParser
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// `remote-config keys list|create|revoke`.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, create and revoke API keys (admin key).",
        discussion: helpText(
            [],
            "remote-config keys create --role client --project my-app --name iOS",
            "remote-config keys list",
            "remote-config keys revoke apiKeys/8f2c…"),
        subcommands: [List.self, Create.self, Revoke.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the active keys (no secrets).",
            discussion: helpText([], "remote-config keys list --json"))

        @OptionGroup var connection: ConnectionOptions

        @Flag(help: "Only the keys that belong to you (any role may list its own).")
        var mine = false

        func run() async throws {
            try await runAdmin {
                let answer = try await connection.client().listKeys(mine: mine)
                if connection.json { return try Output.json(answer) }
                if answer.apiKeys.isEmpty { return Output.line("No keys.") }
                var table = Table("KEY", "NAME", "ROLE", "PROJECT", "OWNER", "PREFIX", "CREATED", "LAST USED")
                for key in answer.apiKeys {
                    table.add(
                        key.name, TerminalText.field(key.displayName), key.role, key.project ?? "(all)",
                        key.owner ?? "(none)", key.keyPrefix, RFC3339.format(key.createTime),
                        key.lastUsedTime.map(RFC3339.format) ?? "never")
                }
                table.print()
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a key; its secret is printed this once.",
            discussion: helpText(
                [
                    "A client key belongs to one project (--project is required); other roles without --project act on every project."
                ],
                "remote-config keys create --role editor --project my-app --name CI",
                "remote-config keys create --role client -p my-app --json | jq -r .key"))

        @OptionGroup var connection: ConnectionOptions

        @Option(help: "admin, editor, viewer or client.")
        var role: String

        @Option(name: [.customShort("p"), .long], help: "The project the key is limited to.")
        var project: String?

        @Option(help: "A name for people, e.g. CI or \"iOS app\".")
        var name: String?

        func run() async throws {
            try await runAdmin {
                let key = try await connection.client().createKey(role: role, project: project, displayName: name)
                if connection.json { return try Output.json(key) }
                let scope = key.project.map { "project \($0)" } ?? "all projects"
                Output.note("Created \(key.role) key \(key.name) for \(scope).")
                Output.note("Its secret, shown this once:")
                Output.line(key.key ?? "")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a key; every server refuses it within a second.",
            discussion: helpText([], "remote-config keys revoke apiKeys/8f2c…"))

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The key's id, as `keys list` shows it (apiKeys/<id> or <id>).")
        var id: String

        func run() async throws {
            try await runAdmin {
                try await connection.client().revokeKey(id)
                if connection.json { return Output.json(.object([:])) }
                Output.line("Revoked \(id.hasPrefix("apiKeys/") ? id : "apiKeys/" + id).")
            }
        }
    }
}
