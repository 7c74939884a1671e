import ArgumentParser
import Foundation
import RemoteConfigAdminClient
import RemoteConfigCore

extension Template {
    struct Impact: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what publishing a template file would change for the app instances seen recently.",
            discussion: helpText(
                [
                    "The server answers a uniform sample of recently seen app instances with the published template and with the file, as a fetch would, and scales the shares to the active instances (with a 95% margin). Nothing is stored.",
                    "--max-forced makes it a CI gate: exit 7 when the file would newly require more than PERCENT of active instances to update (require_force_update becoming \"true\").",
                ],
                "remote-config template impact -p my-app config.json",
                "remote-config template impact -p my-app config.json --max-forced 2"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Argument(help: "The template file.")
        var file: String

        @Option(help: "Exit 7 when more than this percentage of active instances would newly have to update.")
        var maxForced: Double?

        @Option(help: "Count app instances seen since this RFC 3339 time (default: 7 days ago).")
        var since: String?

        func validate() throws {
            if let maxForced, !(0...100).contains(maxForced) {
                throw ValidationError("--max-forced must be a percentage from 0 to 100")
            }
        }

        func run() async throws {
            try await runAdmin {
                let object = try TemplateFileIO.read(file)
                let (report, json) = try await connection.client().impact(
                    project: project.project, template: object, since: since)
                if connection.json {
                    // Keys sorted, as the server used to write the report and this has always printed it.
                    Output.json(SortedJSON.sortingKeys(.object(json)))
                } else {
                    Output.line(Self.text(report))
                }
                let forced = report.forceUpdate.share * 100
                if let maxForced, forced > maxForced {
                    throw CommandFailure(
                        .gateExceeded,
                        "\(file) would newly require \(ImpactSummary.percent(report.forceUpdate.share)) of active "
                            + "instances (about \(ImpactSummary.count(report.forceUpdate.newlyRequired))) to update, "
                            + "more than --max-forced \(Self.number(maxForced))%")
                }
            }
        }

        /// The summary, then one line per change of answer, for people.
        static func text(_ report: ImpactReport) -> String {
            var lines = [report.summary]
            let sample = report.sample
            lines.append(
                "Sample: \(ImpactSummary.count(sample.instances)) app instances seen since \(sample.since), of "
                    + "\(ImpactSummary.count(sample.activeInstances)) active.")
            guard !report.changes.isEmpty else { return lines.joined(separator: "\n") }
            var table = Table("PARAMETER", "FROM", "TO", "SHARE", "INSTANCES", "MOST SEEN ON")
            for change in report.changes {
                let versions = change.byVersion.prefix(3).map {
                    "\($0.platform) \($0.version) (\(ImpactSummary.count($0.instances)))"
                }
                table.add(
                    change.parameter, change.from ?? "(in-app default)", change.to ?? "(in-app default)",
                    ImpactSummary.estimate(change.share, margin: change.margin),
                    "about \(ImpactSummary.count(change.instances))", versions.joined(separator: ", "))
            }
            lines.append("")
            lines.append(table.render())
            return lines.joined(separator: "\n")
        }

        /// 2 → "2", 2.5 → "2.5".
        static func number(_ value: Double) -> String {
            value == value.rounded() ? String(Int(value)) : String(value)
        }
    }
}
