import ArgumentParser
import RemoteConfigAdminClient
import RemoteConfigCore

extension Template {
    struct Diff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what changed between two versions, or between a version and a template file.",
            discussion: helpText(
                [
                    "Parameters and conditions added (+), removed (-) and changed (~), with each changed value before and after. Without --to or a file, compares with the published version."
                ],
                "remote-config template diff -p my-app --from 7 config.json",
                "remote-config template diff -p my-app --from 5 --to 7"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Option(help: "The version to compare from.")
        var from: Int64

        @Option(help: "The version to compare to, or `draft`.")
        var to: String?

        @Argument(help: "A template file to compare to (instead of --to).")
        var file: String?

        func validate() throws {
            if to != nil, file != nil { throw ValidationError("give --to or a file, not both") }
            if let to, to != "draft", Int64(to) == nil {
                throw ValidationError("--to must be a version number or draft")
            }
        }

        func run() async throws {
            try await runAdmin {
                let client = try connection.client()
                let diff: JSONObject
                let target: String
                if let file {
                    let object = try TemplateFileIO.read(file)
                    let base = try await client.template(project: project.project, version: from)
                    let computed = TemplateDiff(
                        from: try RemoteConfigTemplate(answer: base.template),
                        to: try TemplateFileIO.template(object, path: file))
                    var shaped: JSONObject = ["from": .string(String(from)), "to": .string(file)]
                    for member in computed.jsonObject { shaped[member.key] = member.value }
                    diff = shaped
                    target = file
                } else {
                    let to: String
                    if let given = self.to {
                        to = given
                    } else {
                        guard let latest = try await client.template(project: project.project).versionNumber else {
                            throw CommandFailure(.notFound, "\(project.project) has nothing published to compare with")
                        }
                        to = String(latest)
                    }
                    diff = try await client.diff(project: project.project, from: String(from), to: to)
                    target = to == "draft" ? "the draft" : "version \(to)"
                }
                if connection.json { return Output.json(diff) }
                Output.line("\(project.project): version \(from) → \(target)")
                Output.line(DiffText.render(diff))
            }
        }
    }
}
