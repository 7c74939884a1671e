import Foundation
import RemoteConfigAPI
import RemoteConfigTestSupport
import Testing

/// A rollout read while its steps are published is one moment: its `history` and its `currentStep` agree. They
/// were read by two statements, so a step committed between them showed in `history` while `currentStep` still
/// named the step before it.
@Suite struct RolloutReadConsistencyTests {
    @Test func aRolloutReadWhileItsStepsArePublishedNamesItsLastPublishedStep() async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(
                app,
                steps: RolloutFixture.heldSteps)
            var reads = 0
            var torn: [String] = []
            for step in 1...3 {
                try await RolloutFixture.makeDue(app, rollout)
                // Four readers as fast as they can until the step is out (bounded in time and count): each read
                // must name as current the last step its history holds.
                let deadline = ContinuousClock.now + .seconds(15)
                let results = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            var count = 0
                            var mismatches: [String] = []
                            while ContinuousClock.now < deadline, count < 2_000 {
                                let now = try await RolloutFixture.get(app, rollout)
                                count += 1
                                if now.currentStep != now.history.last?.step {
                                    mismatches.append("current \(now.currentStep), history \(now.history.map(\.step))")
                                }
                                if now.history.count > step { break }
                            }
                            return (count, mismatches)
                        }
                    }
                    return try await group.reduce(into: (0, [String]())) {
                        $0.0 += $1.0
                        $0.1 += $1.1
                    }
                }
                reads += results.0
                torn += results.1
                let now = try await RolloutFixture.get(app, rollout)
                try #require(now.history.count == step + 1, "step \(step) was not published")
            }
            #expect(torn.isEmpty, "\(torn.count) of \(reads) reads were torn: \(torn.prefix(3))")
            print("rollout reads while steps were published: \(reads), torn: \(torn.count)")
        }
    }
}
