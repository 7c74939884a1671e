import ArgumentParser
import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// `remote-config insights versions|parameters|minimum|import`: who is out there, what they got, and how high the
/// minimum version can go.
struct Insights: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Which app versions fetch, and what decided the values they got.",
        discussion: helpText(
            [
                "Every client answer is counted per project and UTC hour: by platform and app version (distinct app instances are a HyperLogLog estimate, about 1.6% standard error), by what decided each parameter's value, and by the conditions that matched. A server adds its counts to the database every --insights-flush-interval (default 60 s)."
            ],
            "remote-config insights versions -p shop-app --platform IOS",
            "remote-config insights parameters -p shop-app --json",
            "remote-config insights minimum -p shop-app --platform IOS --max-blocked 2%",
            "remote-config insights import -p shop-app installs.csv"),
        subcommands: [Versions.self, Parameters.self, Minimum.self, Import.self])

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

    struct Minimum: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "How high the minimum supported version can go without blocking more than a share of users.",
            discussion: helpText(
                [
                    "A version's blocked share is the share of the platform's active instances (last 7 days by default) on an older version; instances whose version cannot be compared count as blocked. The recommendation is the newest version seen within --max-blocked (never below the current minimum); each newer version gets the day its share is expected to fall to it, from the last 28 days."
                ],
                "remote-config insights minimum -p shop-app --platform IOS",
                "remote-config insights minimum -p shop-app --platform ANDROID --max-blocked 0.5% --json"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Option(help: "The platform: IOS, ANDROID, WEB or UNKNOWN.")
        var platform: String

        @Option(help: "The most a new minimum may block, as a percentage (2%) or a share (0.02); default 1%.")
        var maxBlocked: String?

        @Option(help: "The parameter that holds the minimum (default min_supported_version).")
        var parameter: String?

        @Option(help: "Count app instances seen since this RFC 3339 time (default: 7 days ago).")
        var since: String?

        /// `--max-blocked` as a share from 0 to 1.
        static func share(_ text: String) -> Double? {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let value: Double?
            if trimmed.hasSuffix("%") {
                value = Double(trimmed.dropLast().trimmingCharacters(in: .whitespaces)).map { $0 / 100 }
            } else {
                value = Double(trimmed)
            }
            guard let value, value.isFinite, (0...1).contains(value) else { return nil }
            return value
        }

        func validate() throws {
            if let maxBlocked, Self.share(maxBlocked) == nil {
                throw ValidationError("--max-blocked must be a percentage (2%) or a share from 0 to 1 (0.02)")
            }
        }

        func run() async throws {
            try await runAdmin {
                let report = try await connection.client().insightsMinimumVersion(
                    project: project.project, platform: platform.uppercased(),
                    maxBlockedShare: maxBlocked.flatMap(Self.share), parameter: parameter, since: since)
                if connection.json { return try InsightsText.json(report) }
                InsightsText.minimum(report, project: project.project, maxBlocked: maxBlocked.flatMap(Self.share))
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import daily active devices per version from App Store Connect or the Play Console.",
            discussion: helpText(
                [
                    "FILE is CSV with the header date,platform,version,activeInstances (UTC days, IOS/ANDROID/WEB, a version, a count), or JSON {\"rows\": [...]} when its name ends in .json. For each day and platform in the file, its rows take the place of the counted ones in every insights figure; importing a day, platform and version again replaces it. At most 100,000 rows a call; a bad row fails the whole import (exit 2), naming its line and field."
                ],
                "remote-config insights import -p shop-app installs.csv"))

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Argument(help: "The CSV (or .json) file.")
        var file: String

        func run() async throws {
            try await runAdmin {
                let bytes = try TemplateFileIO.contents(file)
                let type = file.lowercased().hasSuffix(".json") ? "application/json" : "text/csv"
                let result = try await connection.client().insightsImport(
                    project: project.project, body: bytes, contentType: type)
                if connection.json { return try InsightsText.json(result) }
                guard let first = result.firstDate, let last = result.lastDate else {
                    return Output.line("\(file) has no rows: nothing imported.")
                }
                Output.line(
                    "Imported \(result.importedRows) rows into \(project.project): "
                        + "\(first == last ? first : "\(first) to \(last)"), \(result.platforms.joined(separator: ", "))."
                )
            }
        }
    }
}
