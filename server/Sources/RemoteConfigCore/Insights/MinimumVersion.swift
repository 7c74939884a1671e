import Foundation
import RemoteConfigVersions

/// The minimum version a platform's fleet can bear: whom each candidate minimum would block, the newest one
/// within a share, and when a newer one is expected to get there. Instances whose version cannot be compared
/// (`(invalid)`, `(other)`) count as blocked in every figure, the safe side.
public struct MinimumVersionFleet: Sendable {
    /// What one minimum would block.
    public struct Blocked: Sendable, Equatable {
        public let version: String
        public let instances: Int
        /// Of the fleet's active instances; 0 for an empty fleet.
        public let share: Double

        public init(version: String, instances: Int, share: Double) {
            self.version = version
            self.instances = instances
            self.share = share
        }
    }

    /// Distinct instances of the platform in the window.
    public let activeInstances: Int
    /// Distinct instances whose version cannot be compared.
    public let unknownInstances: Int
    /// The versions seen, oldest first, each with its instances.
    private let ordered: [(version: String, semantic: SemanticVersion, tally: InstanceTally)]
    private let unknown: InstanceTally

    /// The fleet whose versions' instances (over one window, of one platform) are `versions`.
    public init(versions: [String: InstanceTally]) {
        var all = InstanceTally()
        var unknown = InstanceTally()
        var ordered: [(version: String, semantic: SemanticVersion, tally: InstanceTally)] = []
        for (version, tally) in versions {
            all.merge(tally)
            if InsightVersion.isVersion(version), let semantic = SemanticVersion(version) {
                ordered.append((version, semantic, tally))
            } else {
                unknown.merge(tally)
            }
        }
        ordered.sort { $0.semantic != $1.semantic ? $0.semantic < $1.semantic : $0.version < $1.version }
        self.ordered = ordered
        self.unknown = unknown
        activeInstances = all.count
        unknownInstances = unknown.count
    }

    /// The share of active instances whose version cannot be compared.
    public var unknownShare: Double { share(unknownInstances) }

    /// The newest version seen, if any.
    public var newest: String? { ordered.last?.version }

    /// What raising the minimum to `version` would block: every instance seen on an older version, and every
    /// instance whose version cannot be compared. An instance seen on several versions in the window counts once.
    public func blocked(by version: String) -> Blocked? { blocked(by: [version])[version] }

    /// What raising the minimum to each of `versions` would block (those that are versions), in one pass over
    /// the fleet's versions, oldest first: the union of what is older only grows.
    public func blocked(by versions: [String]) -> [String: Blocked] {
        let minimums = versions.compactMap { text in SemanticVersion(text).map { (text, $0) } }.sorted { $0.1 < $1.1 }
        var union = unknown
        var next = 0
        var result: [String: Blocked] = [:]
        for (text, minimum) in minimums {
            while next < ordered.count, ordered[next].semantic < minimum {
                union.merge(ordered[next].tally)
                next += 1
            }
            let instances = union.count
            result[text] = Blocked(version: text, instances: instances, share: share(instances))
        }
        return result
    }

    /// Each version seen as a minimum, oldest first.
    public var candidates: [Blocked] {
        let versions = ordered.map(\.version)
        let blocked = blocked(by: versions)
        return versions.compactMap { blocked[$0] }
    }

    /// The candidates newer than `version` (all of them for nil), oldest first.
    public func candidates(newerThan version: String?) -> [Blocked] {
        guard let floor = version.flatMap(SemanticVersion.init) else { return candidates }
        return candidates.filter { SemanticVersion($0.version).map { floor < $0 } ?? false }
    }

    /// The newest version seen whose blocked share is at most `maxBlockedShare`, never older than `current`
    /// (which is answered when no newer version fits); nil for an empty fleet.
    public func recommended(maxBlockedShare: Double, current: String?) -> Blocked? {
        guard activeInstances > 0 else { return nil }
        let fitting = candidates.last { $0.share <= maxBlockedShare }
        guard let current, let currentVersion = SemanticVersion(current) else { return fitting }
        if let fitting, let version = SemanticVersion(fitting.version), currentVersion < version { return fitting }
        return blocked(by: current)
    }

    private func share(_ instances: Int) -> Double {
        activeInstances == 0 ? 0 : min(1, Double(instances) / Double(activeInstances))
    }
}

/// When a version's blocked share is expected to fall to a threshold: a least-squares line through the logarithm
/// of its daily shares, extended to where it crosses the threshold's logarithm.
public enum BlockedShareForecast {
    /// The fewest days of data a forecast is made from.
    public static let minimumDays = 5
    /// The most recent days a forecast reads.
    public static let maximumDays = 28

    /// The day the share reaches `threshold`, from `days` (each day's start and its blocked share; days with no
    /// share are left out); nil with fewer than `minimumDays`, or when the fitted share is not falling.
    public static func crossing(_ days: [(day: Date, share: Double)], threshold: Double) -> Date? {
        let points = days.filter { $0.share > 0 }.sorted { $0.day < $1.day }.suffix(maximumDays)
        guard points.count >= minimumDays, threshold > 0, let first = points.first?.day else { return nil }
        let xs = points.map { $0.day.timeIntervalSince(first) / 86_400 }
        let ys = points.map { log($0.share) }
        let count = Double(points.count)
        let meanX = xs.reduce(0, +) / count
        let meanY = ys.reduce(0, +) / count
        var covariance = 0.0
        var variance = 0.0
        for (x, y) in zip(xs, ys) {
            covariance += (x - meanX) * (y - meanY)
            variance += (x - meanX) * (x - meanX)
        }
        guard variance > 0 else { return nil }
        let slope = covariance / variance
        guard slope < 0 else { return nil }
        let intercept = meanY - slope * meanX
        let daysToCross = (log(threshold) - intercept) / slope
        guard daysToCross.isFinite, daysToCross < 3650 else { return nil }
        return first.addingTimeInterval(daysToCross * 86_400)
    }
}
