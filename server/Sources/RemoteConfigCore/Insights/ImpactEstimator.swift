import Foundation

/// Estimates what a candidate template would change for a fleet from a uniform sample of its app instances:
/// each sampled context is answered by the published and by the candidate template exactly as a fetch would
/// answer it (`CompiledTemplate.resolve`, percent conditions included), and the shares of the sample are
/// scaled to the active instances.
///
/// The margin is the 95% half-width of a share under the normal approximation,
/// `1.96 × √(p(1−p)/n) × √((N−n)/(N−1))`, where `n` is the sample and `N` the active instances: the second
/// factor (the finite-population correction) shrinks the margin as the sample covers more of the fleet and
/// makes it 0 when the sample is the whole active population.
public struct ImpactEstimator: Sendable {
    /// The most versions listed in a `byVersion`; the rest are summed per platform as `(other)`.
    public static let versionLimit = 50

    /// The templates compared.
    public let published: CompiledTemplate?
    /// The template that would be published.
    public let candidate: CompiledTemplate
    /// The parameter read as "update required".
    public let forceUpdateParameter: String

    /// An estimator comparing `candidate` with `published` (nil: nothing published yet, no answers).
    public init(published: CompiledTemplate?, candidate: CompiledTemplate, forceUpdateParameter: String) {
        self.published = published
        self.candidate = candidate
        self.forceUpdateParameter = forceUpdateParameter
    }

    /// The report for `sample` (instances seen since `since`), scaled to `activeInstances` (at least the sample).
    public func estimate(sample: [FetchContext], since: String, activeInstances: Int) -> ImpactReport {
        // Never stopped: the unstoppable form of `estimate(sample:since:activeInstances:stop:)`.
        estimate(sample: sample, since: since, activeInstances: activeInstances, stop: { false })!
    }

    /// The estimate, or nil as soon as `stop` says so (asked every 64 contexts): an estimate nobody waits for
    /// any more (its caller hung up) stops instead of running to the end.
    public func estimate(
        sample: [FetchContext], since: String, activeInstances: Int, stop: () -> Bool
    ) -> ImpactReport? {
        let keys = parameterKeys()
        var tally = Tally()
        for (index, context) in sample.enumerated() {
            if index % 64 == 0, stop() { return nil }
            let before = published?.resolve(context).values ?? [:]
            let after = candidate.resolve(context).values
            let group = Group(platform: context.platform?.rawValue ?? "UNKNOWN", version: context.appVersion)
            tally.sampled[group.platform, default: 0] += 1
            var changed = false
            for key in keys where before[key] != after[key] {
                tally.changes[Transition(parameter: key, from: before[key], to: after[key]), default: Counts()]
                    .add(group)
                changed = true
            }
            if changed { tally.affected.add(group) }
            let wasRequired = before[forceUpdateParameter] == "true"
            let isRequired = after[forceUpdateParameter] == "true"
            if isRequired, !wasRequired { tally.newlyRequired.add(group) }
            if wasRequired, !isRequired { tally.noLongerRequired.add(group) }
        }
        let scale = Scale(sample: sample.count, active: max(activeInstances, sample.count), sampled: tally.sampled)
        let order = Dictionary(keys.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let changes = tally.changes.sorted { left, right in
            let (l, r) = (order[left.key.parameter] ?? 0, order[right.key.parameter] ?? 0)
            if l != r { return l < r }
            if left.value.total != right.value.total { return left.value.total > right.value.total }
            return (left.key.from ?? "", left.key.to ?? "") < (right.key.from ?? "", right.key.to ?? "")
        }.map { transition, counts in
            let estimate = scale.estimate(counts.total)
            return ImpactReport.Change(
                parameter: transition.parameter, from: transition.from, to: transition.to,
                instances: estimate.instances, share: estimate.share, margin: estimate.margin,
                byPlatform: scale.platforms(counts), byVersion: scale.versions(counts))
        }
        let required = scale.estimate(tally.newlyRequired.total)
        var report = ImpactReport(
            sample: ImpactReport.Sample(instances: sample.count, since: since, activeInstances: scale.active),
            changes: changes, affected: scale.estimate(tally.affected.total),
            forceUpdate: ImpactReport.ForceUpdate(
                parameter: forceUpdateParameter, newlyRequired: required.instances, share: required.share,
                margin: required.margin, noLongerRequired: scale.estimate(tally.noLongerRequired.total).instances,
                byPlatform: scale.platforms(tally.newlyRequired), byVersion: scale.versions(tally.newlyRequired)),
            summary: "")
        report.summary = ImpactSummary.text(report)
        return report
    }

    /// Every key either template serves, the published template's order first.
    private func parameterKeys() -> [String] {
        var keys = published?.parameterKeys ?? []
        var seen = Set(keys)
        for key in candidate.parameterKeys where seen.insert(key).inserted { keys.append(key) }
        return keys
    }

    private struct Transition: Hashable {
        var parameter: String
        var from: String?
        var to: String?
    }

    private struct Group: Hashable {
        var platform: String
        var version: String?
    }

    private struct Counts {
        var total = 0
        var byPlatform: [String: Int] = [:]
        var byGroup: [Group: Int] = [:]

        mutating func add(_ group: Group) {
            total += 1
            byPlatform[group.platform, default: 0] += 1
            byGroup[group, default: 0] += 1
        }
    }

    private struct Tally {
        var sampled: [String: Int] = [:]
        var changes: [Transition: Counts] = [:]
        var affected = Counts()
        var newlyRequired = Counts()
        var noLongerRequired = Counts()
    }

    /// From sample counts to estimates of the active population.
    private struct Scale {
        let sample: Int
        let active: Int
        let sampled: [String: Int]

        func estimate(_ count: Int) -> ImpactReport.Estimate {
            guard sample > 0 else { return ImpactReport.Estimate(instances: 0, share: 0, margin: 0) }
            let share = Double(count) / Double(sample)
            let correction = active > 1 ? (Double(active - sample) / Double(active - 1)).squareRoot() : 0
            let margin = 1.96 * (share * (1 - share) / Double(sample)).squareRoot() * correction
            return ImpactReport.Estimate(
                instances: instances(count), share: Self.rounded(share), margin: Self.rounded(margin))
        }

        func instances(_ count: Int) -> Int {
            sample > 0 ? Int((Double(count) * Double(active) / Double(sample)).rounded()) : 0
        }

        func platforms(_ counts: Counts) -> [String: ImpactReport.PlatformPart] {
            counts.byPlatform.reduce(into: [:]) { parts, item in
                let share = Double(item.value) / Double(max(sampled[item.key] ?? 1, 1))
                parts[item.key] = ImpactReport.PlatformPart(
                    instances: instances(item.value), share: Self.rounded(share))
            }
        }

        /// Most instances first; past `versionLimit`, the rest of each platform as one `(other)` entry, since
        /// versions come from untrusted apps and a sample may hold thousands of them.
        func versions(_ counts: Counts) -> [ImpactReport.VersionPart] {
            let sorted = counts.byGroup.sorted { left, right in
                if left.value != right.value { return left.value > right.value }
                if left.key.platform != right.key.platform { return left.key.platform < right.key.platform }
                return (left.key.version ?? "") < (right.key.version ?? "")
            }
            var parts = sorted.prefix(ImpactEstimator.versionLimit).map { group, count in
                ImpactReport.VersionPart(
                    platform: group.platform, version: group.version ?? "(none)", instances: instances(count))
            }
            var rest: [String: Int] = [:]
            for (group, count) in sorted.dropFirst(ImpactEstimator.versionLimit) {
                rest[group.platform, default: 0] += count
            }
            for (platform, count) in rest.sorted(by: { $0.key < $1.key }) {
                parts.append(
                    ImpactReport.VersionPart(platform: platform, version: "(other)", instances: instances(count)))
            }
            return parts
        }

        /// Four decimals: finer digits would claim a precision a sample does not have.
        static func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }
    }
}
