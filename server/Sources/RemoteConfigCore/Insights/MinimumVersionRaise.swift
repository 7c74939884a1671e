import Foundation
import RemoteConfigVersions

/// Whether a minimum-version policy may raise the minimum today: only upward, only to the fleet's
/// recommendation, and only within the limits the team set. Pure, so every rule is tested without a server.
public enum MinimumVersionRaise {
    /// The limits of a policy, with the `neverAbove` parameter's value already read.
    public struct Limits: Sendable, Equatable {
        public var maxBlockedShare: Double
        public var minActiveInstances: Int
        /// The name of the parameter the minimum never goes above, and its value (nil when it has none).
        public var neverAbove: (parameter: String, value: String?)?
        public var keepBehindLatest: Int

        public init(
            maxBlockedShare: Double, minActiveInstances: Int, neverAbove: (parameter: String, value: String?)?,
            keepBehindLatest: Int
        ) {
            self.maxBlockedShare = maxBlockedShare
            self.minActiveInstances = minActiveInstances
            self.neverAbove = neverAbove
            self.keepBehindLatest = keepBehindLatest
        }

        public static func == (lhs: Limits, rhs: Limits) -> Bool {
            lhs.maxBlockedShare == rhs.maxBlockedShare && lhs.minActiveInstances == rhs.minActiveInstances
                && lhs.neverAbove?.parameter == rhs.neverAbove?.parameter
                && lhs.neverAbove?.value == rhs.neverAbove?.value && lhs.keepBehindLatest == rhs.keepBehindLatest
        }
    }

    /// What a check decides, each with the reason in words.
    public enum Decision: Sendable, Equatable {
        /// Raise the minimum to this version.
        case raise(MinimumVersionFleet.Blocked)
        case notEnoughData(String)
        case unchanged(String)
        case limited(String)
    }

    /// The decision for `fleet` when the minimum is `current` (what the newest version is served) and `slot`
    /// (the value the policy would overwrite): the larger of the two is the floor, so a raise never lowers
    /// either. Also answers the recommendation it decided on.
    public static func decide(
        fleet: MinimumVersionFleet, current: String?, slot: String?, limits: Limits
    ) -> (decision: Decision, recommended: MinimumVersionFleet.Blocked?) {
        guard fleet.activeInstances > 0, fleet.activeInstances >= limits.minActiveInstances else {
            return (
                .notEnoughData(
                    "\(fleet.activeInstances) active instances were seen, fewer than minActiveInstances "
                        + "(\(limits.minActiveInstances))"), nil
            )
        }
        let floor = [current, slot].compactMap { $0 }.filter { SemanticVersion($0) != nil }
            .max { SemanticVersion($0)! < SemanticVersion($1)! }
        guard let recommended = fleet.recommended(maxBlockedShare: limits.maxBlockedShare, current: floor) else {
            return (.notEnoughData("no version was seen"), nil)
        }
        guard let target = SemanticVersion(recommended.version) else {
            return (.notEnoughData("no version was seen"), recommended)
        }
        if let floor, let floorVersion = SemanticVersion(floor), !(floorVersion < target) {
            return (
                .unchanged(
                    "the recommendation \(recommended.version) is not newer than the minimum \(floor)"), recommended
            )
        }
        if let (parameter, value) = limits.neverAbove {
            guard let value, let ceiling = SemanticVersion(value) else {
                return (
                    .limited("\(parameter) (neverAbove) has no version value, so no raise is safe"), recommended
                )
            }
            if ceiling < target {
                return (
                    .limited(
                        "the recommendation \(recommended.version) is newer than \(parameter) (\(value), neverAbove)"),
                    recommended
                )
            }
        }
        if limits.keepBehindLatest > 0 {
            let seen = fleet.candidates.map(\.version)
            let index = seen.count - 1 - limits.keepBehindLatest
            guard index >= 0 else {
                return (
                    .limited(
                        "\(seen.count) versions were seen, too few to stay \(limits.keepBehindLatest) behind the "
                            + "latest (keepBehindLatest)"), recommended
                )
            }
            if let ceiling = SemanticVersion(seen[index]), ceiling < target {
                return (
                    .limited(
                        "the recommendation \(recommended.version) is newer than \(seen[index]), "
                            + "\(limits.keepBehindLatest) behind the latest version seen (keepBehindLatest)"),
                    recommended
                )
            }
        }
        return (.raise(recommended), recommended)
    }
}
