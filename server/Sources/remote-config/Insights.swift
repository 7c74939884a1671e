import ArgumentParser
import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// `remote-config insights versions|parameters`: who is out there, and what they got.
struct Insights: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Which app versions fetch, and what decided the values they got.",
        discussion: helpText(
            [
                "Every client answer is counted per project and UTC hour: by platform and app version (distinct app instances are a HyperLogLog estimate, about 1.6% standard error), by what decided each parameter's value, and by the conditions that matched. A server adds its counts to the database every --insights-flush-interval (default 60 s)."
            ],
            "remote-config insights versions -p shop-app --platform IOS",
            "remote-config insights parameters -p shop-app --json"),
        subcommands: [Versions.self, Parameters.self])

    struct Versions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Active app instances and answers by platform and version, newest version first.",
            discussion: helpText(
                [], "remote-config insights versions -p shop-app --platform IOS --since 2026-11-19T00:00:00Z"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Option(help: "Only this platform: IOS, ANDROID, WEB or UNKNOWN.")
        var platform: String?

        @OptionGroup var window: WindowOptions

        func run() async throws {
            try await runAdmin {
                let report = try await connection.client().insightsVersions(
                    project: project.project, platform: platform?.uppercased(), since: window.since, until: window.until
                )
                if connection.json { return try InsightsText.json(report) }
                InsightsText.versions(report, project: project.project)
            }
        }
    }

    struct Parameters: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "For each parameter, the share of answers whose value each condition or default decided.",
            discussion: helpText([], "remote-config insights parameters -p shop-app"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @OptionGroup var window: WindowOptions

        func run() async throws {
            try await runAdmin {
                let report = try await connection.client().insightsParameters(
                    project: project.project, since: window.since, until: window.until)
                if connection.json { return try InsightsText.json(report) }
                InsightsText.parameters(report, project: project.project)
            }
        }
    }
}

/// The window an insights report covers: `--since` and `--until`.
struct WindowOptions: ParsableArguments {
    @Option(help: "Start of the window, RFC 3339 (default: 7 days ago).")
    var since: String?

    @Option(help: "End of the window, RFC 3339 (default: now).")
    var until: String?
}

/// How insights reports read on a terminal.
enum InsightsText {
    /// A report as pretty JSON, members in the order the server writes them.
    static func json(_ report: some Encodable) throws { try Output.json(report) }

    static func versions(_ report: InsightsVersionsReport, project: String) {
        guard report.enabled else { return Output.line("Insights are off on this server (--insights off).") }
        Output.line("\(project), \(report.since) to \(report.until)")
        if report.platforms.isEmpty { return Output.line("No client answers counted in this window.") }
        for platform in report.platforms {
            Output.line()
            Output.line(
                "\(platform.platform): about \(count(platform.activeInstances)) active instances, "
                    + "\(count(platform.answers)) answers")
            var table = Table("VERSION", "ACTIVE", "SHARE", "ANSWERS")
            for version in platform.versions {
                table.add(
                    version.version, count(version.activeInstances), percent(version.share), count(version.answers))
            }
            table.print()
        }
        Output.line()
        Output.line("Active instances are estimates (HyperLogLog, about 1.6% standard error).")
    }

    static func parameters(_ report: InsightsParametersReport, project: String) {
        guard report.enabled else { return Output.line("Insights are off on this server (--insights off).") }
        Output.line("\(project), \(report.since) to \(report.until): \(count(report.answers)) answers")
        if report.parameters.isEmpty { return Output.line("No client answers counted in this window.") }
        Output.line()
        var table = Table("PARAMETER", "SOURCE", "ANSWERS", "SHARE")
        for name in report.parameters.keys.sorted() {
            for (index, source) in (report.parameters[name]?.sources ?? []).enumerated() {
                let label = source.condition.map { "\(source.source) \($0)" } ?? source.source
                table.add(index == 0 ? name : "", label, count(source.answers), percent(source.share))
            }
        }
        table.print()
        if !report.conditions.isEmpty {
            Output.line()
            var conditions = Table("CONDITION", "MATCHED", "SHARE")
            for name in report.conditions.keys.sorted() {
                let condition = report.conditions[name]!
                conditions.add(name, count(condition.matched), percent(condition.share))
            }
            conditions.print()
        }
    }

    /// `12,345`.
    static func count(_ value: Int) -> String {
        value.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
    }

    /// `73.3%`.
    static func percent(_ share: Double) -> String {
        String(format: "%.1f%%", share * 100)
    }
}
