import ArgumentParser
import RemoteConfigAdminClient
import RemoteConfigCore

extension Template {
    /// `template compare`: the drift between two projects' published templates.
    struct Compare: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show how a project's published template differs from another project's.",
            discussion: helpText(
                [
                    "Every parameter that differs (whole parameters, conditional values compared through their conditions' expressions), is only on one side, or is local to an environment, and every condition that differs."
                ],
                "remote-config template compare -p shop-app --with shop-app-staging"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Option(help: "The project to compare with.")
        var with: String

        func run() async throws {
            try await runAdmin {
                let report = try await connection.client().compare(project: project.project, with: with)
                if connection.json { return Output.json(report) }
                let here = project.project
                let words = [
                    "DIFFERENT": "different", "ONLY_HERE": "only in \(here)", "ONLY_THERE": "only in \(with)",
                    "LOCAL": "local", "SAME": "same",
                ]
                var table = Table("PARAMETER", "STATUS")
                let parameters = report["parameters"]?.arrayValue ?? []
                for entry in parameters where entry["status"]?.stringValue != "SAME" {
                    let status = entry["status"]?.stringValue ?? ""
                    table.add(entry["key"]?.stringValue ?? "", words[status] ?? status)
                }
                for entry in report["conditions"]?.arrayValue ?? [] where entry["status"]?.stringValue != "SAME" {
                    let status = entry["status"]?.stringValue ?? ""
                    table.add("condition \(entry["name"]?.stringValue ?? "")", words[status] ?? status)
                }
                if table.rows.isEmpty { return Output.line("\(here) and \(with) are the same.") }
                table.print()
                let same = parameters.filter { $0["status"]?.stringValue == "SAME" }.count
                if same > 0 { Output.line("(\(same) parameters the same)") }
            }
        }
    }
}
