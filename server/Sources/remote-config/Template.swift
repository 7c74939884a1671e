import ArgumentParser
import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// `remote-config template …`: a project's template as a file in git.
struct Template: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read, check, publish and roll back a project's template.",
        discussion: helpText(
            [
                "The template lives in a file beside the app: pull it with `get -o`, edit it, review it, then `validate`, `diff` and `publish`. Publishing refuses (exit 3) when someone published since the file was pulled."
            ],
            "remote-config template get -p my-app -o config.json",
            "remote-config template diff -p my-app --from 7 config.json",
            "remote-config template publish -p my-app config.json --description v8"),
        subcommands: [
            Get.self, Validate.self, Publish.self, Versions.self, Diff.self, Rollback.self, Defaults.self,
            Preview.self, Set.self, Impact.self, Compare.self,
        ])

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print or save the published template (or version N) with its version.",
            discussion: helpText(
                ["The file keeps the `version` it was pulled at; `publish` uses it to refuse overwriting a newer one."],
                "remote-config template get -p my-app -o config.json",
                "remote-config template get -p my-app --version 5"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Option(help: "A version number (default: the published one).")
        var version: Int64?

        @Option(name: .shortAndLong, help: "Write to this file instead of stdout.")
        var output: String?

        func run() async throws {
            try await runAdmin {
                let answer = try await connection.client().template(project: project.project, version: version)
                try TemplateFileIO.write(answer.template, to: output)
                if let output, output != "-" {
                    let what =
                        answer.versionNumber.map { "version \($0)" } ?? "the empty template (nothing published yet)"
                    Output.note("Wrote \(what) of \(project.project) to \(output).")
                }
            }
        }
    }

    struct Versions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List published versions, newest first.",
            discussion: helpText(
                ["Walks every page of the history (progress on stderr when it is a terminal) unless --limit stops it."],
                "remote-config template versions -p my-app --limit 10"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Option(help: "Show at most this many versions (default: all).")
        var limit: Int?

        /// Versions per request: the server's maximum.
        static let pageSize = 300

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more") }
        }

        func run() async throws {
            try await runAdmin {
                let client = try connection.client()
                var versions: [TemplateVersionInfo] = []
                var token: String?
                var progress = Progress()
                var pages = 0
                repeat {
                    let want = min(Self.pageSize, (limit ?? Int.max) - versions.count)
                    let page = try await client.listVersions(project: project.project, pageSize: want, pageToken: token)
                    versions += page.versions
                    token = page.nextPageToken
                    pages += 1
                    if token != nil {
                        progress.update(
                            "reading versions of \(project.project): \(versions.count) so far (page \(pages))…")
                    }
                } while token != nil && versions.count < (limit ?? Int.max)
                progress.finish()
                if connection.json {
                    return try Output.json(TemplateVersionList(versions: versions, nextPageToken: token))
                }
                if versions.isEmpty {
                    return Output.line("No versions: nothing has been published to \(project.project).")
                }
                var table = Table("VERSION", "PUBLISHED", "BY", "ORIGIN", "TYPE", "DESCRIPTION")
                for version in versions {
                    var type = version.updateType
                    if let source = version.rollbackSource { type += " of \(source)" }
                    table.add(
                        version.versionNumber, version.updateTime, version.updateUser.email, version.updateOrigin,
                        type, version.description ?? "")
                }
                table.print()
                if token != nil { Output.note("(more versions follow; raise --limit to see them)") }
            }
        }
    }

    struct Rollback: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish a copy of version N as the next version.",
            discussion: helpText([], "remote-config template rollback -p my-app 5"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Argument(help: "The version to roll back to.")
        var version: Int64

        func run() async throws {
            try await runAdmin {
                let answer = try await connection.client().rollback(
                    project: project.project, to: version, origin: commandLineOrigin)
                if connection.json { return Output.json(answer.template) }
                let number = answer.versionNumber.map(String.init) ?? "?"
                Output.line("Rolled \(project.project) back to version \(version): published as version \(number).")
            }
        }
    }

    struct Defaults: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download the in-app defaults file: JSON, an Apple property list, or Android XML.",
            discussion: helpText(
                [],
                "remote-config template defaults -p my-app --format plist -o D.plist",
                "remote-config template defaults -p my-app --format xml -o defaults.xml"))

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case json, plist, xml
        }

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Option(help: "json, plist or xml.")
        var format: Format = .json

        @Option(name: .shortAndLong, help: "Write to this file instead of stdout.")
        var output: String?

        func run() async throws {
            try await runAdmin {
                let bytes = try await connection.client().defaults(project: project.project, format: format.rawValue)
                try TemplateFileIO.write(bytes, to: output)
                if let output, output != "-" {
                    Output.note("Wrote the \(format.rawValue) defaults of \(project.project) to \(output).")
                }
            }
        }
    }

    struct Preview: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what an app with this context would get, and why.",
            discussion: helpText(
                ["The context is a fetch body (appInstanceId may be left out). Nothing is stored."],
                "remote-config template preview -p my-app --context '{\"platform\": \"IOS\"}'",
                "remote-config template preview -p my-app --version 7 --context @ctx.json"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Option(help: "The fetch context as JSON, or @FILE to read it from a file.")
        var context: String

        @Option(help: "A version number or `draft` (default: the published template).")
        var version: String?

        func validate() throws {
            if let version, version != "draft", Int64(version) == nil {
                throw ValidationError("--version must be a version number or draft")
            }
        }

        func run() async throws {
            try await runAdmin {
                let value: JSONValue
                if context.hasPrefix("@") {
                    value = .object(try TemplateFileIO.read(String(context.dropFirst())))
                } else {
                    do {
                        value = try JSONValue(parsing: context)
                    } catch {
                        throw CommandFailure(.usage, "--context is not valid JSON: \(error)")
                    }
                }
                let answer = try await connection.client().evaluate(
                    project: project.project, context: value, version: version)
                if connection.json { return try Output.json(answer) }
                var heading = "State \(answer.state)"
                if let number = answer.templateVersion { heading += ", template version \(number)" }
                Output.line(heading + ".")
                let parameters = answer.parameters.members
                if !parameters.isEmpty {
                    var table = Table("PARAMETER", "VALUE", "SOURCE", "CONDITION")
                    for member in parameters {
                        let value = member.value.value ?? "(the app's own default)"
                        table.add(member.key, value, member.value.source, member.value.condition ?? "")
                    }
                    Output.line()
                    table.print()
                }
                let conditions = answer.conditions.members
                if !conditions.isEmpty {
                    var table = Table("CONDITION", "MATCHES")
                    for member in conditions {
                        let text = member.value.map { $0 ? "yes" : "no" } ?? "unknown (an input was not sent)"
                        table.add(member.key, text)
                    }
                    Output.line()
                    table.print()
                }
            }
        }
    }
}
