import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// Pause, resume, halt, complete; someone else's edit pauses a rollout; a step keeps what others published.
@Suite struct RolloutControlTests {
    static var slow: [RolloutStep] {
        [.init(percent: 5, holdSeconds: 3600), .init(percent: 25, holdSeconds: 3600), .init(percent: 100)]
    }

    /// The published template with `banner`'s default set to `text` and nothing else changed.
    static func editBanner(_ app: TestApp.Session, _ text: String) async throws -> TestApp.Reply {
        var template = try await app.call(.get, "/v1/projects/shop-app/remoteConfig").value.objectValue ?? [:]
        var parameters = template["parameters"]?.objectValue ?? [:]
        var banner = parameters["banner"]?.objectValue ?? [:]
        template["version"] = nil
        banner["defaultValue"] = ["value": .string(text)]
        parameters["banner"] = .object(banner)
        template["parameters"] = .object(parameters)
        return try await app.publish("shop-app", .object(template))
    }

    @Test func aStepKeepsWhatOthersPublishedMeanwhile() async throws {
        try await TestApp.run { app in
            let key = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(app, steps: Self.slow)
            #expect(try await Self.editBanner(app, "winter sale").status == 200)
            #expect(try await RolloutFixture.get(app, rollout).state == "RUNNING", "banner is not the rollout's")
            try await RolloutFixture.makeDue(app, rollout)
            let stepped = try await RolloutFixture.waitForSteps(app, rollout, 2)
            #expect(stepped.history.map(\.versionNumber) == ["2", "4"])
            let template = try await RolloutFixture.published(app)
            let banner = template["parameters"]?["banner"]
            #expect(banner?["defaultValue"]?["value"]?.stringValue == "winter sale")
            #expect(banner?["conditionalValues"]?.objectValue?.keys.contains("ios") == true)
            #expect(RolloutFixture.conditionNames(template) == [rollout.conditionName, "ios"])
            let fetched = try await ClientCalls.fetch(app, key: key, ["appInstanceId": "x", "platform": "ANDROID"])
            #expect(fetched.value["entries"]?["banner"] == "winter sale")
        }
    }

    @Test func anEditOfTheParameterByAnyoneElsePausesItAndResumingRepublishesTheStep() async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(
                app,
                steps: [.init(percent: 5, holdSeconds: 1), .init(percent: 25, holdSeconds: 1), .init(percent: 100)])
            // Someone publishes the template of version 1 again: the rollout's condition and value are gone.
            #expect(try await app.publish("shop-app", RolloutFixture.template).status == 200)
            let paused = try await RolloutFixture.get(app, rollout)
            #expect(paused.state == "PAUSED")
            #expect(paused.pauseReason == "EDITED")
            #expect(paused.nextStepTime == nil)
            // The hold passes: no step while paused.
            try await Task.sleep(for: .milliseconds(1500))
            #expect(try await RolloutFixture.versions(app).count == 3)
            #expect(try await RolloutFixture.actions(app).contains("rollout.pause"))

            let resumed = try await RolloutFixture.act(app, rollout, "resume")
            #expect(resumed.status == 200, "\(resumed.text)")
            #expect(try RolloutFixture.decode(resumed).state == "RUNNING")
            let template = try await RolloutFixture.published(app)
            let first = RolloutFixture.conditionNames(template).first
            #expect(first == rollout.conditionName, "resuming put the step back")
            let done = try await RolloutFixture.waitForSteps(app, rollout, 3)
            #expect(done.history.map(\.percent) == [5, 25, 100])
        }
    }

    @Test func pauseStopsTheClockAndResumeKeepsThePace() async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(
                app, steps: [.init(percent: 5, holdSeconds: 2), .init(percent: 100)])
            let paused = try await RolloutFixture.act(app, rollout, "pause")
            #expect(paused.status == 200)
            #expect(try RolloutFixture.decode(paused).pauseReason == "MANUAL")
            #expect(try await RolloutFixture.act(app, rollout, "pause").status == 200, "pausing twice is harmless")
            try await Task.sleep(for: .milliseconds(2500))
            #expect(try await RolloutFixture.get(app, rollout).history.count == 1, "no step while paused")
            let resumed = try RolloutFixture.decode(try await RolloutFixture.act(app, rollout, "resume"))
            #expect(resumed.state == "RUNNING")
            let next = try #require(resumed.nextStepTime.flatMap { try? Date($0, strategy: .iso8601) })
            #expect(next.timeIntervalSinceNow > 0.5, "what was left of the hold, not the step at once")
            let done = try await RolloutFixture.waitForSteps(app, rollout, 2)
            #expect(done.currentStep == 1)
        }
    }

    @Test func haltGivesEveryAppWhatItHadBeforeInOnePublishAndRepeatsHarmlessly() async throws {
        try await TestApp.run { app in
            let key = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(app, steps: [.init(percent: 60)])
            let members = try await (0..<40).asyncFilter {
                try await RolloutFixture.value(app, key: key, instance: "i-\($0)") == "true"
            }
            #expect(!members.isEmpty)
            let halted = try await RolloutFixture.act(app, rollout, "halt")
            #expect(halted.status == 200, "\(halted.text)")
            let body = try RolloutFixture.decode(halted)
            #expect(body.state == "HALTED")
            #expect(body.endVersionNumber == "3")
            for instance in 0..<40 {
                #expect(try await RolloutFixture.value(app, key: key, instance: "i-\(instance)") == "false")
            }
            let template = try await RolloutFixture.published(app)
            #expect(RolloutFixture.conditionNames(template) == ["ios"])
            #expect(template["version"]?["updateOrigin"]?.stringValue == "ROLLOUT")
            #expect(try await RolloutFixture.act(app, rollout, "halt").status == 200)
            #expect(try await RolloutFixture.versions(app).count == 3, "a second halt publishes nothing")
            #expect(try await RolloutFixture.act(app, rollout, "resume").status == 409)
            #expect(try await RolloutFixture.act(app, rollout, "complete").status == 409)
            #expect(try await RolloutFixture.actions(app).contains("rollout.halt"))
        }
    }

    @Test func completeMakesTheValueTheDefaultAndRemovesTheCondition() async throws {
        try await TestApp.run { app in
            let key = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(app, steps: Self.slow)
            let completed = try await RolloutFixture.act(app, rollout, "complete")
            #expect(completed.status == 200, "\(completed.text)")
            #expect(try RolloutFixture.decode(completed).state == "COMPLETED")
            let template = try await RolloutFixture.published(app)
            let parameter = template["parameters"]?["new_checkout"]
            #expect(parameter?["defaultValue"]?["value"]?.stringValue == "true")
            #expect(parameter?["conditionalValues"]?.objectValue?.isEmpty != false)
            #expect(RolloutFixture.conditionNames(template) == ["ios"])
            #expect(try await RolloutFixture.value(app, key: key, instance: "anyone") == "true")
            let listed = try await app.call(.get, RolloutFixture.base + "?state=COMPLETED")
            #expect(try listed.decode(RolloutList.self).rollouts.map(\.name) == [rollout.name])
            #expect(
                try await app.call(.get, RolloutFixture.base + "?state=RUNNING").decode(RolloutList.self).rollouts
                    .isEmpty)
        }
    }

    @Test func viewersReadAndOnlyEditorsAct() async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            let viewer = try await app.createKey(role: "viewer", project: "shop-app").secret
            let rollout = try await RolloutFixture.start(app, steps: Self.slow)
            #expect(try await app.call(.get, RolloutFixture.base, token: viewer).status == 200)
            #expect(
                try await app.call(.get, "\(RolloutFixture.base)/\(RolloutFixture.id(rollout))", token: viewer).status
                    == 200)
            #expect(try await RolloutFixture.act(app, rollout, "halt", token: viewer).status == 403)
            #expect(try await RolloutFixture.create(app, steps: Self.slow, token: viewer).status == 403)
            #expect(try await app.call(.get, "\(RolloutFixture.base)/999").status == 404)
            #expect(try await app.call(.post, "\(RolloutFixture.base)/999:halt", json: [:] as JSONValue).status == 404)
        }
    }
}

extension Range<Int> {
    /// The elements for which `predicate` holds, in order.
    func asyncFilter(_ predicate: (Int) async throws -> Bool) async rethrows -> [Int] {
        var kept: [Int] = []
        for element in self where try await predicate(element) { kept.append(element) }
        return kept
    }
}
