import ArgumentParser
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// `remote-config role-bindings list|create|delete`: who gets which role.
struct RoleBindings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "role-bindings",
        abstract: "List, give and take roles of people, groups and email domains (admin).",
        discussion: helpText(
            [
                "A member is an email (user:alice@example.com), group:NAME as the identity provider names it, or domain:NAME."
            ],
            "remote-config role-bindings create group:mobile-release --role editor -p my-app",
            "remote-config role-bindings list",
            "remote-config role-bindings delete roleBindings/8f2c…"),
        subcommands: [List.self, Create.self, Delete.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the role bindings (of one project and of every project with -p).")

        @OptionGroup var connection: ConnectionOptions

        @Option(name: [.customShort("p"), .long], help: "Only this project's bindings (and those of every project).")
        var project: String?

        func run() async throws {
            try await runAdmin {
                let answer = try await connection.client().listRoleBindings(project: project)
                if connection.json { return try Output.json(answer) }
                if answer.roleBindings.isEmpty { return Output.line("No role bindings.") }
                var table = Table("BINDING", "MEMBER", "ROLE", "PROJECT", "MADE BY", "CREATED")
                for binding in answer.roleBindings {
                    let creator = binding.createdBy
                    let madeBy =
                        creator.bootstrap == true
                        ? "--oidc-admins"
                        : TerminalText.field(creator.email ?? creator.displayName ?? creator.key ?? "")
                    table.add(
                        binding.name, TerminalText.field(binding.member), binding.role, binding.project ?? "(all)",
                        madeBy,
                        RFC3339.format(binding.createTime))
                }
                table.print()
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a member a role, on one project (-p) or on every project.",
            discussion: helpText([], "remote-config role-bindings create alice@example.com --role admin"))

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "user:EMAIL (or just the email), group:NAME or domain:NAME.")
        var member: String

        @Option(help: "viewer, editor or admin.")
        var role: String

        @Option(name: [.customShort("p"), .long], help: "The project; without it, every project.")
        var project: String?

        func run() async throws {
            try await runAdmin {
                let binding = try await connection.client().createRoleBinding(
                    member: member, role: role, project: project)
                if connection.json { return try Output.json(binding) }
                Output.line(
                    "\(TerminalText.field(binding.member)) is now \(binding.role) on \(binding.project ?? "every project") (\(binding.name))."
                )
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take a binding's role away, at once.",
            discussion: helpText([], "remote-config role-bindings delete roleBindings/8f2c…"))

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The binding, as `role-bindings list` shows it.")
        var id: String

        func run() async throws {
            try await runAdmin {
                try await connection.client().deleteRoleBinding(id)
                if connection.json { return Output.json(.object([:])) }
                Output.line("Deleted \(id).")
            }
        }
    }
}
