import ArgumentParser
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// `remote-config promote`: a published version of one project (staging) into another (production), three-way.
struct Promote: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Promote a project's published version into another project, keeping the target's hotfixes.",
        discussion: helpText(
            [
                "Each parameter is compared with the version promoted last: the source's changes are promoted, the target's own changes since (hotfixes) are kept unless named with --only or --overwrite-target-changes, and a parameter both changed is a conflict (exit 3, listed). The source's local parameters never move. --dry-run prints the table and changes nothing."
            ],
            "remote-config promote --from shop-app-staging --to shop-app --dry-run",
            "remote-config promote --from shop-app-staging --to shop-app --only require_force_update --change-request"))

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "The project to promote from (default: the one whose promotesTo is --to).")
    var from: String?

    @Option(help: "The project to promote into.")
    var to: String

    @Option(help: "The source's version (default: its published one).")
    var version: Int64?

    @Option(help: "Only these parameters, comma-separated; they are promoted even over the target's changes.")
    var only: String?

    @Flag(help: "Take the source's parameter wherever the target changed it since the last promotion.")
    var overwriteTargetChanges = false

    @Flag(help: "Save the result as the target's draft instead of publishing it.")
    var draft = false

    @Flag(help: "Open a change request instead of publishing (the default while the target requires approval).")
    var changeRequest = false

    @Flag(help: "Print what would be promoted and change nothing.")
    var dryRun = false

    @Option(help: "The new version's or change request's description.")
    var description: String?

    func validate() throws {
        if draft, changeRequest { throw ValidationError("give --draft or --change-request, not both") }
    }

    func run() async throws {
        try await runAdmin {
            let only = self.only.map {
                $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            let request = PromoteRequest(
                from: from, fromVersionNumber: version.map(String.init), parameters: only,
                overwriteTargetChanges: overwriteTargetChanges ? true : nil, validateOnly: dryRun ? true : nil,
                description: description, as: draft ? "DRAFT" : changeRequest ? "CHANGE_REQUEST" : nil)
            let answer = try await connection.client().promote(into: to, request)
            if connection.json { return Output.json(answer) }
            Self.print(answer, dryRun: dryRun)
        }
    }

    /// The table (what moves first), then what the promotion made.
    static func print(_ answer: JSONObject, dryRun: Bool) {
        let source = answer["from"]
        let sourceText =
            "\(source?["project"]?.stringValue ?? "?") version \(source?["versionNumber"]?.stringValue ?? "?")"
        let base = answer["base"]?["versionNumber"]?.stringValue.map { "since version \($0), promoted last" }
        Output.line(
            "From \(sourceText) into \(answer["to"]?["project"]?.stringValue ?? "?") (\(base ?? "no earlier promotion")):"
        )
        var table = Table("PARAMETER", "STATUS", "PROMOTED")
        let entries = answer["parameters"]?.arrayValue ?? []
        let promoted = { (entry: JSONValue) in entry["promoted"] == .bool(true) }
        for entry in entries.sorted(by: { promoted($0) && !promoted($1) })
        where entry["status"]?.stringValue != "UNCHANGED" {
            table.add(
                entry["key"]?.stringValue ?? "", entry["status"]?.stringValue ?? "", promoted(entry) ? "yes" : "no")
        }
        if table.rows.isEmpty {
            Output.line("  every parameter is the same in both")
        } else {
            table.print()
        }
        let unchanged = entries.filter { $0["status"]?.stringValue == "UNCHANGED" }.count
        if unchanged > 0 { Output.line("(\(unchanged) unchanged)") }
        if dryRun { return Output.line("Dry run: nothing changed.") }
        if answer["changed"] == .bool(false) {
            return Output.line("Nothing to promote: this version was promoted already.")
        }
        if let version = answer["version"]?["versionNumber"]?.stringValue {
            Output.line("Published version \(version).")
        } else if let request = answer["changeRequest"]?["name"]?.stringValue {
            Output.line("Opened \(request): it is published once approved.")
        } else if answer["draft"] != nil {
            Output.line("Saved as the draft: review and publish it with `remote-config changes` or the console.")
        }
    }
}
