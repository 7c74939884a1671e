import Foundation
import RemoteConfigAPI
import RemoteConfigTestSupport
import Testing

/// Sticky membership: one seed per rollout (its condition's name) and Firebase's bucket, so an app instance in
/// the rollout at one step is in at every later step. Checked instance by instance against the contract's
/// formula (SHA-256 of `seed.appInstanceId` modulo 100,000,000), computed here independently of the server.
@Suite struct RolloutMembershipTests {
    static let instances = (0..<800).map { "instance-\($0)-\(($0 * 7919) % 1000)" }

    @Test func membershipAtOneTenAndFiftyPercentIsExactlyTheContractsBucketAndOnlyGrows() async throws {
        try await TestApp.run { app in
            let key = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(
                app,
                steps: RolloutFixture.heldSteps)
            var previous: Set<String> = []
            for (step, percent) in [1.0, 10, 50].enumerated() {
                if step > 0 {
                    try await RolloutFixture.makeDue(app, rollout)
                    let now = try await RolloutFixture.waitForSteps(app, rollout, step + 1)
                    try #require(now.currentStep == step, "step \(step) was not published")
                }
                var members: Set<String> = []
                var mismatches: [String] = []
                for instance in Self.instances {
                    let value = try await RolloutFixture.value(app, key: key, instance: instance)
                    let expected = RolloutFixture.isIn(rollout, instance: instance, percent: percent)
                    if (value == "true") != expected { mismatches.append(instance) }
                    if value == "true" { members.insert(instance) }
                }
                #expect(mismatches.isEmpty, "at \(percent)%: \(mismatches.prefix(5)) differ from the contract's bucket")
                #expect(previous.isSubset(of: members), "an instance left the rollout at \(percent)%")
                let share = Double(members.count) / Double(Self.instances.count) * 100
                #expect(members.count > 0 && abs(share - percent) < max(3, percent * 0.3), "\(share)% at \(percent)%")
                print("rollout membership: \(members.count) of \(Self.instances.count) instances at \(percent)%")
                previous = members
            }
        }
    }

    @Test func twoRolloutsOfOneProjectUseTheirOwnSeeds() async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            let first = try await RolloutFixture.start(app, steps: [.init(percent: 50)])
            #expect(try await RolloutFixture.act(app, first, "complete").status == 200)
            let second = try await RolloutFixture.start(app, steps: [.init(percent: 50)])
            #expect(first.conditionName != second.conditionName)
            let differing = Self.instances.filter {
                RolloutFixture.isIn(first, instance: $0, percent: 50)
                    != RolloutFixture.isIn(second, instance: $0, percent: 50)
            }
            #expect(differing.count > 100, "independent seeds pick different halves")
        }
    }
}
