/// An impact report in words, as the console and the command line show it before a publish:
/// "This change makes 4.1% of active iOS installs, about 1,240, required to update: 1.1.4 and 1.0.x."
public enum ImpactSummary {
    /// One or two sentences saying who would be required to update and how many instances see a change.
    public static func text(_ report: ImpactReport) -> String {
        guard report.sample.instances > 0 else {
            return "No app instances seen since \(report.sample.since) are sampled yet, so the impact is unknown."
        }
        var sentences: [String] = []
        let forced = report.forceUpdate
        if forced.newlyRequired > 0 {
            let parts = forced.byPlatform.sorted { ($1.value.instances, $0.key) < ($0.value.instances, $1.key) }
                .map { platform, part in
                    let versions = versionList(forced.byVersion.filter { $0.platform == platform }.map(\.version))
                    return "\(percent(part.share)) of active \(installs(platform)), about \(count(part.instances)),"
                        + " required to update: \(versions)"
                }
            sentences.append("This change makes " + parts.joined(separator: "; and ") + ".")
        } else if forced.noLongerRequired == 0 {
            sentences.append("No app instance is newly required to update (\(forced.parameter)).")
        }
        if forced.noLongerRequired > 0 {
            sentences.append(
                "It no longer requires about \(count(forced.noLongerRequired)) active instances to update.")
        }
        let parameters = Set(report.changes.map(\.parameter)).count
        if parameters == 0 {
            sentences.append(
                "No parameter's answer changes for the \(count(report.sample.instances)) sampled app instances.")
        } else {
            let affected = report.affected
            sentences.append(
                "\(parameters == 1 ? "1 parameter changes" : "\(parameters) parameters change") for "
                    + "\(estimate(affected.share, margin: affected.margin)) of active instances, "
                    + "about \(count(affected.instances)) of \(count(report.sample.activeInstances)).")
        }
        return sentences.joined(separator: " ")
    }

    /// "4.1% ± 0.4%", or "4.1%" when the sample is the whole fleet (nothing is estimated).
    public static func estimate(_ share: Double, margin: Double) -> String {
        margin > 0 ? "\(percent(share)) ± \(percent(margin))" : percent(share)
    }

    /// `IOS` → "iOS installs".
    static func installs(_ platform: String) -> String {
        switch platform {
        case "IOS": return "iOS installs"
        case "ANDROID": return "Android installs"
        case "WEB": return "web installs"
        default: return "installs of no known platform"
        }
    }

    /// A share as a percentage with one decimal; a share too small for that says so.
    public static func percent(_ share: Double) -> String {
        if share > 0, share < 0.0005 { return "under 0.1%" }
        let tenths = Int((share * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10)%"
    }

    /// 1240 → "1,240".
    public static func count(_ value: Int) -> String {
        var digits = Array(String(abs(value)))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: index)
            index -= 3
        }
        return (value < 0 ? "-" : "") + String(digits)
    }

    /// Versions newest first, those sharing a major and minor version folded into `1.0.x`:
    /// "1.1.4 and 1.0.x", at most five named.
    static func versionList(_ versions: [String]) -> String {
        var families: [String: [String]] = [:]
        for version in versions {
            let parts = version.split(separator: ".", omittingEmptySubsequences: false)
            let family = parts.count > 2 ? parts.prefix(2).joined(separator: ".") : version
            families[family, default: []].append(version)
        }
        let named = families.map { family, members in members.count > 1 ? family + ".x" : members[0] }
            .sorted { newer($0, than: $1) }
        let shown = named.count > 5 ? Array(named.prefix(4)) + ["\(named.count - 4) more"] : named
        guard shown.count > 1 else { return shown.first ?? "" }
        return shown.dropLast().joined(separator: ", ") + " and " + shown.last!
    }

    /// Version order by numeric parts, newest first; text that is not a version after every version.
    private static func newer(_ left: String, than right: String) -> Bool {
        let (l, r) = (numbers(left), numbers(right))
        switch (l, r) {
        case (nil, nil): return left < right
        case (nil, _): return false
        case (_, nil): return true
        case (let l?, let r?):
            for index in 0..<max(l.count, r.count) {
                let (a, b) = (index < l.count ? l[index] : 0, index < r.count ? r[index] : 0)
                if a != b { return a > b }
            }
            return left < right
        }
    }

    private static func numbers(_ version: String) -> [Int]? {
        let parts = version.replacingOccurrences(of: ".x", with: "").split(separator: ".")
        let values = parts.compactMap { Int($0) }
        return values.count == parts.count && !values.isEmpty ? values : nil
    }
}
