import RemoteConfigCore
import Testing

/// A policy raises the minimum only upward, only to the fleet's recommendation, and only within its limits.
@Suite struct MinimumVersionRaiseTests {
    /// 10,000 instances: 1% on 1.9.0, 9% on 2.0.0, 60% on 2.1.0, 30% on 2.2.0.
    static let fleet = MinimumVersionFleet(versions: [
        "1.9.0": InstanceTally(reported: 100), "2.0.0": InstanceTally(reported: 900),
        "2.1.0": InstanceTally(reported: 6000), "2.2.0": InstanceTally(reported: 3000),
    ])

    static func limits(
        share: Double = 0.1, minimum: Int = 1000, neverAbove: (parameter: String, value: String?)? = nil,
        behind: Int = 0
    ) -> MinimumVersionRaise.Limits {
        .init(maxBlockedShare: share, minActiveInstances: minimum, neverAbove: neverAbove, keepBehindLatest: behind)
    }

    @Test func itRaisesToTheNewestVersionWithinTheShare() {
        let (decision, recommended) = MinimumVersionRaise.decide(
            fleet: Self.fleet, current: "1.9.0", slot: "1.9.0", limits: Self.limits())
        #expect(decision == .raise(.init(version: "2.1.0", instances: 1000, share: 0.1)))
        #expect(recommended?.version == "2.1.0")
    }

    @Test func fewerInstancesThanAskedForIsNotEnoughData() {
        let (decision, _) = MinimumVersionRaise.decide(
            fleet: Self.fleet, current: "1.9.0", slot: "1.9.0", limits: Self.limits(minimum: 10_001))
        guard case .notEnoughData(let reason) = decision else {
            Issue.record("\(decision)")
            return
        }
        #expect(reason.contains("10000 active instances"))
        let empty = MinimumVersionRaise.decide(
            fleet: MinimumVersionFleet(versions: [:]), current: nil, slot: nil, limits: Self.limits(minimum: 0))
        #expect(empty.recommended == nil)
        if case .notEnoughData = empty.decision {} else { Issue.record("\(empty.decision)") }
    }

    @Test func itNeverLowersTheMinimum() {
        // Served 2.2.0 already (another condition), or written 2.2.0 where the policy writes: no lower raise.
        for (current, slot) in [("2.2.0", "1.9.0"), ("1.9.0", "2.2.0"), ("2.1.0", "2.1.0")] {
            let (decision, _) = MinimumVersionRaise.decide(
                fleet: Self.fleet, current: current, slot: slot, limits: Self.limits())
            guard case .unchanged = decision else {
                Issue.record("\(current)/\(slot): \(decision)")
                continue
            }
        }
    }

    @Test func neverAboveStopsARaisePastItsValue() {
        let (limited, recommended) = MinimumVersionRaise.decide(
            fleet: Self.fleet, current: "1.9.0", slot: "1.9.0",
            limits: Self.limits(neverAbove: ("current_version", "2.0.5")))
        #expect(recommended?.version == "2.1.0")
        guard case .limited(let reason) = limited else {
            Issue.record("\(limited)")
            return
        }
        #expect(reason.contains("current_version (2.0.5"))
        let (allowed, _) = MinimumVersionRaise.decide(
            fleet: Self.fleet, current: "1.9.0", slot: "1.9.0",
            limits: Self.limits(neverAbove: ("current_version", "2.1.0")))
        #expect(allowed == .raise(.init(version: "2.1.0", instances: 1000, share: 0.1)))
        // A ceiling that is not a version allows nothing: the safe side.
        let (unreadable, _) = MinimumVersionRaise.decide(
            fleet: Self.fleet, current: "1.9.0", slot: "1.9.0",
            limits: Self.limits(neverAbove: ("current_version", nil)))
        if case .limited = unreadable {} else { Issue.record("\(unreadable)") }
    }

    @Test func keepBehindLatestCountsReleasesSeen() {
        // Everyone may go to 2.2.0 (share 1), but one release behind the latest is 2.1.0.
        let (one, _) = MinimumVersionRaise.decide(
            fleet: Self.fleet, current: "1.9.0", slot: "1.9.0", limits: Self.limits(share: 1, behind: 1))
        if case .limited(let reason) = one {
            #expect(reason.contains("2.1.0, 1 behind"))
        } else {
            Issue.record("\(one)")
        }
        let (within, _) = MinimumVersionRaise.decide(
            fleet: Self.fleet, current: "1.9.0", slot: "1.9.0", limits: Self.limits(share: 0.1, behind: 1))
        #expect(within == .raise(.init(version: "2.1.0", instances: 1000, share: 0.1)))
        let (tooFew, _) = MinimumVersionRaise.decide(
            fleet: Self.fleet, current: "1.9.0", slot: "1.9.0", limits: Self.limits(share: 0.1, behind: 4))
        if case .limited = tooFew {} else { Issue.record("\(tooFew)") }
    }

    @Test func unknownVersionsCountAsBlocked() {
        // 5% cannot be compared: with at most 10% blocked, 2.1.0 (10% older plus 5% unknown) is too much.
        let fleet = MinimumVersionFleet(versions: [
            "1.9.0": InstanceTally(reported: 100), "2.0.0": InstanceTally(reported: 900),
            "2.1.0": InstanceTally(reported: 5500), "(invalid)": InstanceTally(reported: 500),
            "2.2.0": InstanceTally(reported: 3000),
        ])
        let (decision, _) = MinimumVersionRaise.decide(
            fleet: fleet, current: "1.9.0", slot: "1.9.0", limits: Self.limits())
        #expect(decision == .raise(.init(version: "2.0.0", instances: 600, share: 0.06)))
    }
}
