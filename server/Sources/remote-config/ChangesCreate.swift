import ArgumentParser
import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

extension Changes {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Propose a template file as a change request, to publish now or at a time.",
            discussion: helpText(
                [
                    "The server checks the file exactly as a publish would (exit 2 when it is invalid). Like `template publish`, it refuses (exit 3) a file pulled at an older version than the published one, unless --force. With --at and an RFC 3339 time (--at 2026-12-01T09:00:00Z) the server publishes the request at that time, once it is approved."
                ],
                "remote-config changes create -p my-app config.json --description v8"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Argument(help: "The template file.")
        var file: String

        @Option(help: "What the change is for; the published version's description (at most 256 characters).")
        var description: String

        @Option(help: "Publish at this RFC 3339 time once approved, e.g. 2026-12-01T09:00:00Z.")
        var at: String?

        @Flag(help: "Propose the file even if the published version is no longer the file's.")
        var force = false

        func validate() throws {
            if let at, RFC3339.parse(at) == nil {
                throw ValidationError("--at must be an RFC 3339 time such as 2026-12-01T09:00:00Z, not '\(at)'")
            }
        }

        func run() async throws {
            try await runAdmin {
                let client = try connection.client()
                let object = try TemplateFileIO.read(file)
                let fileVersion = TemplateFile.versionNumber(of: object)
                if !force {
                    let published = try await client.template(project: project.project)
                    guard fileVersion == published.versionNumber else {
                        throw CommandFailure(.conflict, stale(fileVersion, published: published.versionNumber))
                    }
                }
                var template = object
                template["version"] = nil
                let request = try await client.createChangeRequest(
                    project: project.project, template: template, description: description, publishTime: at)
                let id = request.id
                // The request's base is what was published when it was opened: a publish that landed after the
                // check above would be silently undone by this file, so the request is withdrawn.
                let base = Int64(request.baseVersionNumber) ?? 0
                if !force, base != (fileVersion ?? 0) {
                    _ = try? await client.actOnChangeRequest(project: project.project, id: id, action: "cancel")
                    throw CommandFailure(.conflict, stale(fileVersion, published: base))
                }
                if connection.json { return try Output.json(request) }
                let time = request.publishTime.map(RFC3339.format) ?? ""
                var line = "Opened change request \(id) of \(project.project): it is \(request.state)"
                if request.state == "SCHEDULED" { line += " for \(time)" }
                Output.line(line + ".")
                if request.state == "OPEN" {
                    Output.note(
                        "Another key approves it with `remote-config changes approve -p \(project.project) \(id)`; "
                            + (at == nil
                                ? "then `remote-config changes publish -p \(project.project) \(id)` publishes it."
                                : "the server then publishes it at \(time)."))
                }
            }
        }

        private func stale(_ fileVersion: Int64?, published: Int64?) -> String {
            StaleFile.explanation(
                file: file, fileVersion: fileVersion, published: published, project: project.project,
                override: "propose it with --force")
        }
    }
}
