import ArgumentParser
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// `remote-config projects list|create`.
struct Projects: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List and create projects.",
        discussion: helpText(
            [],
            "remote-config projects create my-app --name \"My App\"",
            "remote-config projects list"),
        subcommands: [List.self, Create.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the projects this key can see.",
            discussion: helpText([], "remote-config projects list --server http://127.0.0.1:8080 --json"))

        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            try await runAdmin {
                let answer = try await connection.client().listProjects()
                if connection.json { return try Output.json(answer) }
                if answer.projects.isEmpty { return Output.line("No projects.") }
                var table = Table("PROJECT", "NAME", "CREATED")
                for project in answer.projects {
                    table.add(project.projectId, project.displayName, RFC3339.format(project.createTime))
                }
                table.print()
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a project (admin key for all projects).",
            discussion: helpText([], "remote-config projects create my-app --name \"My App\""))

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The project id: 3 to 63 lowercase letters, digits or dashes, starting with a letter.")
        var id: String

        @Option(help: "A name for people (default: the id).")
        var name: String?

        func run() async throws {
            try await runAdmin {
                let project = try await connection.client().createProject(id: id, displayName: name)
                if connection.json { return try Output.json(project) }
                Output.line("Created project \(project.projectId) (\(project.displayName)).")
            }
        }
    }
}
