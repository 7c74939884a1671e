import Foundation

/// Where new rollouts' ids come from. Drawn at random from a range of 2^53 (numbers a browser reads exactly),
/// so that no one can know a rollout's condition name, `rollout_<id>`, before the rollout exists, and plant
/// values for it on other parameters to ship with it.
public struct RolloutIDs: Sendable {
    /// The ids drawn: 13 to 16 digits, never one of the small numbers a sequence gave rollouts before.
    public static let range: ClosedRange<Int64> = 1_000_000_000_000...9_007_199_254_740_991

    let draw: @Sendable () -> Int64

    /// Ids from `draw` (tests give known ones).
    public init(_ draw: @escaping @Sendable () -> Int64) {
        self.draw = draw
    }

    /// Ids from the system's cryptographic random source.
    public static let random = RolloutIDs { Int64.random(in: range) }
}
