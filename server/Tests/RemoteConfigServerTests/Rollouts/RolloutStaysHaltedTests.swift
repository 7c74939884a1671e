import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// A halted or completed rollout's condition never reaches apps again, whatever path publishes: a change
/// request opened while it ran (scheduled or not), a rollback to one of its steps, a `PUT` or a draft of a
/// template copied while it ran. A second halt removes a condition that came back before that was so.
@Suite struct RolloutStaysHaltedTests {
    static let instances = (0..<400).map { "app-\($0)" }
    /// Held steps whose first reaches some of `instances` whatever the rollout's (random) bucketing seed: at 1%
    /// none of 400 apps got the value in about one run of fifty, and a test that starts by expecting some did
    /// failed.
    static let steps: [RolloutStep] = [
        .init(percent: 10, holdSeconds: 3600), .init(percent: 50, holdSeconds: 3600), .init(percent: 100),
    ]

    /// How many of `instances` get `new_checkout = true`.
    static func members(_ app: TestApp.Session, key: String) async throws -> Int {
        var count = 0
        for instance in instances where try await RolloutFixture.value(app, key: key, instance: instance) == "true" {
            count += 1
        }
        return count
    }

    /// `template` (its `version` dropped) with `banner`'s default set to `text`.
    static func withBanner(_ template: JSONValue, _ text: String) -> JSONValue {
        var object = template.objectValue ?? [:]
        object["version"] = nil
        var parameters = object["parameters"]?.objectValue ?? [:]
        var banner = parameters["banner"]?.objectValue ?? [:]
        banner["defaultValue"] = ["value": .string(text)]
        parameters["banner"] = .object(banner)
        object["parameters"] = .object(parameters)
        return .object(object)
    }

    /// Expects the published template to have nothing of `rollout` and no app to get its value.
    static func expectGone(_ app: TestApp.Session, _ rollout: Rollout, key: String, _ how: String) async throws {
        let template = try await RolloutFixture.published(app)
        #expect(!RolloutFixture.conditionNames(template).contains(rollout.conditionName), "\(how): condition back")
        let values = template["parameters"]?["new_checkout"]?["conditionalValues"]?.objectValue?.keys ?? []
        #expect(!values.contains(rollout.conditionName), "\(how): conditional value back")
        let members = try await Self.members(app, key: key)
        #expect(members == 0, "\(how): \(members) of \(Self.instances.count) apps got the value again")
    }

    @Test func aScheduledChangeRequestOpenedWhileItRanDoesNotBringItBack() async throws {
        try await TestApp.run { app in
            let key = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(app, steps: Self.steps)
            #expect(try await Self.members(app, key: key) > 0)
            let publishTime = Date().addingTimeInterval(2)
            let opened = try await app.call(
                .post, Workflow.base,
                body: CreateChangeRequestRequest(
                    description: "spring banner",
                    template: Self.withBanner(try await RolloutFixture.published(app), "spring sale"),
                    publishTime: Workflow.timestamp(publishTime)))
            #expect(opened.status == 201, "\(opened.text)")
            let id = Workflow.id(opened)
            #expect(try await RolloutFixture.act(app, rollout, "halt").status == 200)
            let published = try await Workflow.eventually(.seconds(15)) {
                try await Workflow.get(app, id).changeRequest.state == "PUBLISHED"
            }
            try #require(published, "the scheduled change request was not published")
            try await Self.expectGone(app, rollout, key: key, "scheduled change request")
            let template = try await RolloutFixture.published(app)
            #expect(template["parameters"]?["banner"]?["defaultValue"]?["value"] == "spring sale", "its change is in")
            #expect(try await RolloutFixture.get(app, rollout).state == "HALTED")
            let versions = try await RolloutFixture.versions(app).count
            #expect(try await RolloutFixture.act(app, rollout, "halt").status == 200)
            #expect(try await RolloutFixture.versions(app).count == versions, "nothing left for a second halt")
        }
    }

    @Test func aRollbackOrACopyFromWhileItRanDoesNotBringItBack() async throws {
        try await TestApp.run { app in
            let key = try await RolloutFixture.setUp(app)
            for action in ["halt", "complete"] {
                let rollout = try await RolloutFixture.start(app, steps: Self.steps)
                let step = try #require(rollout.history.first?.versionNumber)
                let copy = try await RolloutFixture.published(app)
                let draft = try await app.call(
                    .put, "/v1/projects/shop-app/remoteConfig/draft", json: Self.withBanner(copy, "draft"),
                    headers: [.ifMatch: "*"])
                #expect(draft.status == 200, "\(draft.text)")
                #expect(try await RolloutFixture.act(app, rollout, action).status == 200)

                let rolledBack = try await app.call(
                    .post, "/v1/projects/shop-app/remoteConfig:rollback", json: ["versionNumber": .string(step)])
                #expect(rolledBack.status == 200, "\(rolledBack.text)")
                #expect(rolledBack.value["version"]?["rollbackSource"] == .string(step))
                try await Self.expectGone(app, rollout, key: key, "\(action), then a rollback to version \(step)")

                let put = try await app.publish("shop-app", copy)
                #expect(put.status == 200, "\(put.text)")
                #expect(!RolloutFixture.conditionNames(put.value).contains(rollout.conditionName), "the answer says so")
                try await Self.expectGone(app, rollout, key: key, "\(action), then a PUT of a copy")

                let fromDraft = try await app.call(
                    .post, "/v1/projects/shop-app/remoteConfig/draft:publish?force=true", json: [:],
                    headers: [.ifMatch: "*"])
                #expect(fromDraft.status == 200, "\(fromDraft.text)")
                try await Self.expectGone(app, rollout, key: key, "\(action), then a draft saved while it ran")
            }
        }
    }

    @Test func aSecondHaltRemovesAConditionThatCameBack() async throws {
        try await TestApp.run { app in
            let key = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(app, steps: Self.steps)
            let running = try await RolloutFixture.published(app)
            #expect(try await RolloutFixture.act(app, rollout, "halt").status == 200)
            // What a server from before this rule let a rollback do: the step's template published again.
            try await RolloutFixture.plant(app, running)
            let back = try await Workflow.eventually { try await Self.members(app, key: key) > 0 }
            try #require(back, "the planted version did not reach the cache")
            let again = try await app.call(
                .post, "/v1/rollouts/\(RolloutFixture.id(rollout)):halt", token: rollout.haltToken)
            #expect(again.status == 200, "\(again.text)")
            let answer = try again.decode(RolloutHaltAnswer.self)
            #expect(answer.published, "the second halt published the template without it: \(again.text)")
            #expect(answer.versionNumber == "5")
            try await Self.expectGone(app, rollout, key: key, "a second halt")
            #expect(try await RolloutFixture.get(app, rollout).endVersionNumber == "5")
        }
    }
}
