import ArgumentParser
import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// `remote-config changes …`: change requests, for projects whose publishes are reviewed and approved.
struct Changes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Propose, review, approve and publish template changes (change requests).",
        discussion: helpText(
            [
                "A change request proposes a template file; another key approves it; then it is published as the next version (updateOrigin CHANGE_REQUEST), now or at its --at time. A project that requires approval publishes only this way. ID is the number `list` shows (or changeRequests/<id>)."
            ],
            "remote-config changes create -p my-app config.json --description v8",
            "remote-config changes approve -p my-app 12 --comment \"Looks right\"",
            "remote-config changes publish -p my-app 12"),
        subcommands: [
            List.self, Show.self, Create.self, Approve.self, Reject.self, Cancel.self, Publish.self,
        ])

    /// The states a change request can be in, as `--state` takes them.
    static let states = ["OPEN", "APPROVED", "SCHEDULED", "PUBLISHED", "REJECTED", "CANCELLED"]

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List change requests, newest first.",
            discussion: helpText(
                ["Walks every page unless --limit stops it. The templates are not listed: `show` one to see its diff."],
                "remote-config changes list -p my-app --state open"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Option(help: "Only requests in this state: open, approved, scheduled, published, rejected or cancelled.")
        var state: String?

        @Option(help: "Show at most this many requests (default: all).")
        var limit: Int?

        /// Requests per call: the server's maximum.
        static let pageSize = 300

        func validate() throws {
            if let state, !Changes.states.contains(state.uppercased()) {
                throw ValidationError(
                    "--state must be one of \(Changes.states.map { $0.lowercased() }.joined(separator: ", "))")
            }
            if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more") }
        }

        func run() async throws {
            try await runAdmin {
                let client = try connection.client()
                var requests: [ChangeRequest] = []
                var token: String?
                repeat {
                    let want = min(Self.pageSize, (limit ?? Int.max) - requests.count)
                    let page = try await client.listChangeRequests(
                        project: project.project, state: state?.uppercased(), pageSize: want, pageToken: token)
                    requests += page.changeRequests
                    token = page.nextPageToken
                } while token != nil && requests.count < (limit ?? Int.max)
                if connection.json {
                    return try Output.json(ChangeRequestList(changeRequests: requests, nextPageToken: token))
                }
                if requests.isEmpty {
                    let which = state.map { " \($0.uppercased())" } ?? ""
                    return Output.line("No\(which) change requests in \(project.project).")
                }
                var table = Table(
                    "ID", "STATE", "CREATED", "AUTHOR", "APPROVALS", "PUBLISH TIME", "VERSION", "DESCRIPTION")
                for request in requests {
                    table.add(
                        request.id, request.state, RFC3339.format(request.createTime),
                        request.author.email.map(TerminalText.field) ?? TerminalText.field(request.author.displayName),
                        String(request.approvals.count), request.publishTime.map(RFC3339.format) ?? "",
                        request.publishedVersionNumber ?? "", request.description)
                }
                table.print()
                if token != nil { Output.note("(more change requests follow; raise --limit to see them)") }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a change request: its state, author, approvals, times, and what it changes.",
            discussion: helpText(
                [
                    "The diff is against the template published now, in the form of `template diff`. --json prints the request with its template and diff."
                ],
                "remote-config changes show -p my-app 12"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Argument(help: "The change request's id.")
        var id: String

        func run() async throws {
            try await runAdmin {
                let client = try connection.client()
                let request = try await client.changeRequest(project: project.project, id: id)
                if connection.json { return try Output.json(request) }
                let settings = try? await client.project(id: project.project)
                var diff = request.diff?.objectValue ?? [:]
                // Once published, "against the published template" is itself: show what its publish changed.
                if let number = request.publishedVersionNumber.flatMap({ Int64($0) }),
                    let proposed = request.template?.objectValue
                {
                    let before: RemoteConfigTemplate
                    if number > 1 {
                        before = try RemoteConfigTemplate(
                            answer: try await client.template(project: project.project, version: number - 1).template)
                    } else {
                        before = try RemoteConfigTemplate(answer: [:])
                    }
                    diff = ["from": .string(String(number - 1)), "to": .string(String(number))]
                    for member in TemplateDiff(from: before, to: try RemoteConfigTemplate(answer: proposed)).jsonObject
                    {
                        diff[member.key] = member.value
                    }
                }
                Output.line(
                    ChangeRequestText.details(request, diff: diff, project: project.project, settings: settings))
            }
        }
    }

    struct Approve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Approve a change request (not its author's key: exit 4).",
            discussion: helpText(
                [
                    "Once it has the approvals the project requires it is APPROVED (publish it with `changes publish`), or SCHEDULED when it has a publish time."
                ],
                "remote-config changes approve -p my-app 12 --comment \"Looks right\""))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Argument(help: "The change request's id.")
        var id: String

        @Option(help: "A comment kept with the approval.")
        var comment: String?

        func run() async throws {
            try await runAdmin {
                let request = try await connection.client().actOnChangeRequest(
                    project: project.project, id: id, action: "approve", comment: comment)
                try ChangeRequestText.report("Approved", request, project: project.project, json: connection.json)
            }
        }
    }

    struct Reject: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reject a change request; it is closed for good.",
            discussion: helpText([], "remote-config changes reject -p my-app 12 --comment \"Wrong default\""))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Argument(help: "The change request's id.")
        var id: String

        @Option(help: "Why, for the author.")
        var comment: String?

        func run() async throws {
            try await runAdmin {
                let request = try await connection.client().actOnChangeRequest(
                    project: project.project, id: id, action: "reject", comment: comment)
                try ChangeRequestText.report("Rejected", request, project: project.project, json: connection.json)
            }
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel a change request (its author's key, or an admin's).",
            discussion: helpText(
                ["A scheduled request cancelled before its time is never published."],
                "remote-config changes cancel -p my-app 12"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Argument(help: "The change request's id.")
        var id: String

        func run() async throws {
            try await runAdmin {
                let request = try await connection.client().actOnChangeRequest(
                    project: project.project, id: id, action: "cancel")
                try ChangeRequestText.report("Cancelled", request, project: project.project, json: connection.json)
            }
        }
    }

    struct Publish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish an approved change request now, as the next version.",
            discussion: helpText(
                [
                    "Refuses (exit 3) when another version was published after the request's base; --force publishes it anyway. Exit 4 while it lacks the approvals the project requires."
                ],
                "remote-config changes publish -p my-app 12"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Argument(help: "The change request's id.")
        var id: String

        @Flag(help: "Publish even if another version was published after the request's base.")
        var force = false

        func run() async throws {
            try await runAdmin {
                let request = try await connection.client().actOnChangeRequest(
                    project: project.project, id: id, action: "publish", force: force)
                if connection.json { return try Output.json(request) }
                Output.line(
                    "Published change request \(request.id) of \(project.project) as version "
                        + "\(request.publishedVersionNumber ?? "").")
            }
        }
    }
}
