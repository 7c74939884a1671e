import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// How insights reports read on a terminal.
enum InsightsText {
    /// A report as pretty JSON, keys sorted, as `--json` has always printed it.
    static func json(_ report: some Encodable) throws { Output.raw(try SortedJSON.text(report)) }

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

    static func minimum(_ report: InsightsMinimumVersionReport, project: String, maxBlocked: Double?) {
        let limit = percent(maxBlocked ?? 0.01)
        Output.line(
            "\(project), \(report.platform), since \(report.since): about \(count(report.activeInstances)) active "
                + "instances")
        if report.activeInstances == 0 { return Output.line("No client answers counted in this window.") }
        if let current = report.current {
            Output.line(
                "Current minimum: \(TerminalText.field(current.value)) (\(TerminalText.field(current.parameter))), "
                    + "blocks \(percent(current.blockedShare)) (about \(count(current.blockedInstances)))")
        } else {
            Output.line("Current minimum: none (the parameter is not a version for this platform's newest version)")
        }
        if let recommended = report.recommended {
            Output.line(
                "Recommended within \(limit): \(TerminalText.field(recommended.version)), blocks "
                    + "\(percent(recommended.blockedShare)) (about \(count(recommended.blockedInstances)))")
        }
        if report.unknownShare > 0 {
            Output.line("\(percent(report.unknownShare)) run a version that cannot be compared; counted as blocked.")
        }
        guard !report.forecast.isEmpty else { return }
        Output.line()
        var table = Table("VERSION", "BLOCKS NOW", "WITHIN \(limit) BY", "DAYS OF DATA")
        for entry in report.forecast {
            table.add(
                TerminalText.field(entry.version), percent(entry.blockedShare),
                entry.reachesMaxBlockedShare ?? (entry.basedOnDays < 5 ? "too few days" : "not falling"),
                String(entry.basedOnDays))
        }
        table.print()
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
