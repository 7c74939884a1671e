import ArgumentParser
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// `remote-config webhooks list|create|show|delete|test|deliveries`.
struct Webhooks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Tell other systems about every change of a project (admin key).",
        discussion: helpText(
            [
                "A webhook gets a signed POST for each event it subscribes to; see docs/api.md, Webhooks. ID is webhooks/<id> or <id>, as `list` shows it."
            ],
            "remote-config webhooks create -p my-app --url https://hooks.example.com/rc --event template.published",
            "remote-config webhooks test -p my-app webhooks/5f0c…",
            "remote-config webhooks deliveries -p my-app webhooks/5f0c…"),
        subcommands: [List.self, Create.self, Show.self, Delete.self, Test.self, Deliveries.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the project's webhooks (no secrets).")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        func run() async throws {
            try await runAdmin {
                let answer = try await connection.client().listWebhooks(project: project.project)
                if connection.json { return try Output.json(answer) }
                if answer.webhooks.isEmpty { return Output.line("No webhooks in \(project.project).") }
                var table = Table("WEBHOOK", "URL", "EVENTS", "FORMAT", "ENABLED")
                for webhook in answer.webhooks {
                    table.add(
                        webhook.name, webhook.url, webhook.events.joined(separator: ","), webhook.format,
                        webhook.enabled ? "yes" : "no")
                }
                table.print()
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a webhook; its signing secret is printed this once.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Option(help: "Where to POST (http:// or https://).")
        var url: String

        @Option(name: .customLong("event"), help: "An event to send (repeat it); default: every event (*).")
        var events: [String] = []

        @Option(help: "JSON (default) or SLACK.")
        var format: String?

        @Option(help: "A note for people.")
        var description: String?

        func run() async throws {
            try await runAdmin {
                let created = try await connection.client().createWebhook(
                    project: project.project, url: url, events: events.isEmpty ? ["*"] : events,
                    format: format?.uppercased(), description: description)
                if connection.json { return try Output.json(created) }
                Output.note("Created \(created.name) → \(created.url).")
                Output.note("Its signing secret, shown this once:")
                Output.line(created.secret ?? "")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one webhook (no secret).")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption
        @Argument(help: "The webhook (webhooks/<id> or <id>).") var id: String

        func run() async throws {
            try await runAdmin {
                try Output.json(try await connection.client().webhook(project: project.project, id: id))
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a webhook and its delivery log.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption
        @Argument(help: "The webhook (webhooks/<id> or <id>).") var id: String

        func run() async throws {
            try await runAdmin {
                try await connection.client().deleteWebhook(project: project.project, id: id)
                if connection.json { return Output.json(.object([:])) }
                Output.line("Deleted \(id.hasPrefix("webhooks/") ? id : "webhooks/" + id).")
            }
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a ping to a webhook.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption
        @Argument(help: "The webhook (webhooks/<id> or <id>).") var id: String

        func run() async throws {
            try await runAdmin {
                let queued = try await connection.client().testWebhook(project: project.project, id: id)
                if connection.json { return try Output.json(queued) }
                Output.line(
                    "Queued ping \(queued.id); see `webhooks deliveries` for its fate.")
            }
        }
    }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A webhook's recent deliveries, newest first.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption
        @Argument(help: "The webhook (webhooks/<id> or <id>).") var id: String

        func run() async throws {
            try await runAdmin {
                let answer = try await connection.client().webhookDeliveries(project: project.project, id: id)
                if connection.json { return try Output.json(answer) }
                if answer.deliveries.isEmpty { return Output.line("No deliveries yet.") }
                var table = Table("DELIVERY", "TYPE", "STATE", "ATTEMPTS", "LAST STATUS", "LAST ERROR", "CREATED")
                for delivery in answer.deliveries {
                    table.add(
                        delivery.id, delivery.type, delivery.state, String(delivery.attempts),
                        delivery.lastStatus.map(String.init) ?? "", delivery.lastError ?? "",
                        RFC3339.format(delivery.createTime))
                }
                table.print()
            }
        }
    }
}
