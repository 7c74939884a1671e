import ArgumentParser
import Foundation
import RemoteConfigAdminClient
import RemoteConfigCore

/// What the command line says it is, in a published version's `updateOrigin`.
let commandLineOrigin = "CLI"

extension Template {
    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a template file as a publish would, and show what publishing it would change.",
            discussion: helpText(
                [
                    "The server checks the file exactly as a publish does and stores nothing. Exit 2 when it is invalid, with every problem and the field at fault. A note on stderr says when the file was pulled at an older version than the published one (publish would then refuse it)."
                ],
                "remote-config template validate -p my-app config.json"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Argument(help: "The template file.")
        var file: String

        func run() async throws {
            try await runAdmin {
                let client = try connection.client()
                let object = try TemplateFileIO.read(file)
                let body = TemplateFile.publishBody(object, description: nil, origin: commandLineOrigin)
                _ = try await client.publish(project: project.project, template: body, ifMatch: "*", validateOnly: true)
                let published = try await client.template(project: project.project)
                let diff = TemplateDiff(
                    from: try RemoteConfigTemplate(answer: published.template),
                    to: try TemplateFileIO.template(object, path: file))
                let fileVersion = TemplateFile.versionNumber(of: object)
                let stale = fileVersion != published.versionNumber
                if connection.json {
                    var answer: JSONObject = ["valid": .bool(true)]
                    answer["fileVersion"] = fileVersion.map { .string(String($0)) } ?? .null
                    answer["publishedVersion"] = published.versionNumber.map { .string(String($0)) } ?? .null
                    answer["diff"] = .object(diff.jsonObject)
                    return Output.json(answer)
                }
                let against = published.versionNumber.map { "version \($0)" } ?? "the empty template"
                Output.line("\(file) is a valid template for \(project.project).")
                if diff.isEmpty {
                    Output.line("Publishing it would change nothing against \(against).")
                } else {
                    Output.line("Publishing it would change, against \(against):")
                    Output.line(DiffText.render(diff.jsonObject))
                }
                if stale {
                    Output.note(
                        StaleFile.explanation(
                            file: file, fileVersion: fileVersion, published: published.versionNumber,
                            project: project.project))
                }
            }
        }
    }

    struct Publish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish a template file as the next version, never over a version published meanwhile.",
            discussion: helpText(
                [
                    "The file's `version.versionNumber` must still be the published version (exit 3 otherwise: someone published since it was pulled); a file without a version publishes only onto an empty project. --force publishes anyway. The publish carries the ETag it checked, so a publish that lands in between is refused too. On success the file's `version` becomes the new version, so the next edit publishes over it (commit it back)."
                ],
                "remote-config template publish -p my-app config.json --description v8"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Argument(help: "The template file.")
        var file: String

        @Option(help: "The new version's description (at most 256 characters).")
        var description: String?

        @Flag(help: "Publish even if the published version is no longer the file's.")
        var force = false

        func run() async throws {
            try await runAdmin {
                let client = try connection.client()
                let object = try TemplateFileIO.read(file)
                let ifMatch: String
                let previous: Int64?
                if force {
                    ifMatch = "*"
                    previous = nil
                } else {
                    let published = try await client.template(project: project.project)
                    let fileVersion = TemplateFile.versionNumber(of: object)
                    guard fileVersion == published.versionNumber else {
                        throw CommandFailure(
                            .conflict,
                            StaleFile.explanation(
                                file: file, fileVersion: fileVersion, published: published.versionNumber,
                                project: project.project))
                    }
                    ifMatch = published.etag
                    previous = published.versionNumber
                }
                let body = TemplateFile.publishBody(object, description: description, origin: commandLineOrigin)
                let answer: TemplateWithETag
                do {
                    answer = try await client.publish(project: project.project, template: body, ifMatch: ifMatch)
                } catch AdminClientError.server(let error) where error.code == 412 {
                    throw CommandFailure(
                        .conflict,
                        "someone published to \(project.project) while this publish was under way; nothing was published. Pull again, merge, and retry."
                    )
                } catch AdminClientError.server(let error) where error.approvalRequired {
                    throw CommandFailure(
                        .refused,
                        "\(project.project) requires approval, so nothing was published. Propose the file with "
                            + "`remote-config changes create -p \(project.project) \(file) --description TEXT`; "
                            + "once another key approves it, `remote-config changes publish -p \(project.project) ID` "
                            + "publishes it.")
                }
                try TemplateFileIO.write(TemplateFile.recording(answer.template, in: object), to: file)
                if connection.json { return Output.json(answer.template) }
                let number = answer.versionNumber.map(String.init) ?? "?"
                let over = previous.map { " over version \($0)" } ?? (force ? " (forced)" : "")
                Output.line(
                    "Published \(project.project) version \(number)\(over); \(file) now records version \(number).")
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change one parameter's default value in the published template and publish it.",
            discussion: helpText(
                [
                    "The parameter must exist. The change is applied to the template as published now and sent with its ETag; when someone publishes in between, it is read again and applied again (never overwriting their change). Nothing is published when the value is already the same."
                ],
                "remote-config template set -p my-app current_version 2.4.0"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Argument(help: "The parameter key (top-level or in a group).")
        var key: String

        @Argument(help: "The new default value, as text (\"true\", \"42\", a JSON text…).")
        var value: String

        @Option(help: "The new version's description.")
        var description: String?

        /// Reads and publishes at most this many times when others publish in between.
        static let attempts = 3

        func run() async throws {
            try await runAdmin {
                let client = try connection.client()
                for attempt in 1...Self.attempts {
                    let published = try await client.template(project: project.project)
                    guard var changed = Self.setting(key, to: value, in: published.template) else {
                        throw CommandFailure(
                            .notFound, "\(project.project) has no parameter \(key) in its published template")
                    }
                    if changed == published.template {
                        if connection.json { return Output.json(published.template) }
                        let number = published.versionNumber.map(String.init) ?? "0"
                        return Output.line("\(key) is already \(value) in version \(number); nothing published.")
                    }
                    changed = TemplateFile.publishBody(changed, description: description, origin: commandLineOrigin)
                    do {
                        let answer = try await client.publish(
                            project: project.project, template: changed, ifMatch: published.etag)
                        if connection.json { return Output.json(answer.template) }
                        let number = answer.versionNumber.map(String.init) ?? "?"
                        return Output.line("Set \(key) to \(value): published \(project.project) version \(number).")
                    } catch AdminClientError.server(let error) where error.code == 412 && attempt < Self.attempts {
                        continue
                    }
                }
            }
        }

        /// The template with `key`'s default value replaced, nil when no parameter has that key.
        static func setting(_ key: String, to value: String, in template: JSONObject) -> JSONObject? {
            func replaced(_ parameter: JSONValue) -> JSONValue {
                var object = parameter.objectValue ?? [:]
                object["defaultValue"] = .object(["value": .string(value)])
                return .object(object)
            }
            var copy = template
            if var parameters = copy["parameters"]?.objectValue, let parameter = parameters[key] {
                parameters[key] = replaced(parameter)
                copy["parameters"] = .object(parameters)
                return copy
            }
            guard var groups = copy["parameterGroups"]?.objectValue else { return nil }
            for group in groups {
                guard var object = group.value.objectValue, var parameters = object["parameters"]?.objectValue,
                    let parameter = parameters[key]
                else { continue }
                parameters[key] = replaced(parameter)
                object["parameters"] = .object(parameters)
                groups[group.key] = .object(object)
                copy["parameterGroups"] = .object(groups)
                return copy
            }
            return nil
        }
    }
}
