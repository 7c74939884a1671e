import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// Rollouts through the API: each step a version of its own (`updateOrigin: ROLLOUT`) that changes only the
/// rollout's condition and conditional value; sticky membership; pause on someone else's edit; halt; complete.
@Suite struct RolloutTests {
    @Test func creatingPublishesTheFirstStepAndTheStepsFollowAtTheirTimes() async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            let created = try await RolloutFixture.create(
                app,
                steps: [.init(percent: 1, holdSeconds: 1), .init(percent: 10, holdSeconds: 1), .init(percent: 50)])
            #expect(created.status == 201, "\(created.text)")
            let rollout = try RolloutFixture.decode(created)
            let id = RolloutFixture.id(rollout)
            #expect(rollout.state == "RUNNING")
            #expect(rollout.currentStep == 0)
            #expect(rollout.percent == 1)
            #expect(rollout.conditionName == "rollout_\(id)")
            #expect(rollout.haltToken?.hasPrefix("rch_") == true)
            #expect(rollout.nextStepTime != nil)
            #expect(rollout.author.key?.hasPrefix("apiKeys/") == true)
            #expect(rollout.history.map(\.versionNumber) == ["2"])
            #expect(
                try JSONValue(parsing: [UInt8](created.body)).objectValue?.keys.contains("audience") == true,
                "every field is present, null when unset")

            let template = try await RolloutFixture.published(app)
            let conditions = template["conditions"]?.arrayValue ?? []
            #expect(conditions.first?["name"]?.stringValue == "rollout_\(id)", "first in the list")
            #expect(conditions.first?["expression"]?.stringValue == "percent('rollout_\(id)') <= 1")
            let values = template["parameters"]?["new_checkout"]?["conditionalValues"]
            #expect(values?["rollout_\(id)"]?["value"]?.stringValue == "true")
            #expect(template["version"]?["updateOrigin"]?.stringValue == "ROLLOUT")

            let done = try await RolloutFixture.waitForSteps(app, rollout, 3)
            #expect(done.history.map(\.percent) == [1, 10, 50])
            #expect(done.history.map(\.versionNumber) == ["2", "3", "4"])
            #expect(done.currentStep == 2)
            #expect(done.nextStepTime == nil, "the last step stays until completed")
            #expect(done.state == "RUNNING")
            let times = done.history.compactMap { try? Date($0.time, strategy: .iso8601) }
            for (earlier, later) in zip(times, times.dropFirst()) {
                let gap = later.timeIntervalSince(earlier)
                #expect(gap >= 0.99 && gap < 3, "a step followed the one before after \(gap) s (hold 1 s)")
            }
            let final = try await RolloutFixture.published(app)
            let expression = final["conditions"]?.arrayValue?.first?["expression"]?.stringValue
            #expect(expression == "percent('rollout_\(id)') <= 50")
            let versions = try await RolloutFixture.versions(app)
            #expect(versions.count == 4, "one version per step and nothing more")
            #expect(versions.prefix(3).allSatisfy { $0["updateOrigin"] == "ROLLOUT" })
            let actions = try await RolloutFixture.actions(app)
            #expect(actions.filter { $0 == "rollout.step" }.count == 3)
            #expect(actions.contains("rollout.create"))
        }
    }

    @Test func anAudienceNarrowsTheConditionAndEveryFieldIsChecked() async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(
                app, steps: [.init(percent: 0.5, holdSeconds: 3600), .init(percent: 100)],
                audience: "device.os == 'ios'")
            let id = RolloutFixture.id(rollout)
            let template = try await RolloutFixture.published(app)
            let expression = template["conditions"]?.arrayValue?.first?["expression"]?.stringValue
            #expect(expression == "(device.os == 'ios') && percent('rollout_\(id)') <= 0.5")
            #expect(rollout.audience == "device.os == 'ios'")
        }
    }
}
