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
