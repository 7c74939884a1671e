import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// A rollout's condition is its own: no publish, draft or change request gives another parameter a value for
/// it or publishes a proposed rollout's condition; its name (`rollout_<id>`, the id drawn at random) cannot be
/// known before it exists, and a rollout is never created over a condition of its name; a halt or a completion
/// removes the condition from every parameter that has a value for it (a template from before these rules may
/// have one).
@Suite struct RolloutConditionOwnershipTests {
    static let draft = "/v1/projects/shop-app/remoteConfig/draft"

    /// Every write that takes a template refuses `template` with 400 naming `field` for `reason`, and changes
    /// nothing.
    static func expectRefusedEverywhere(
        _ app: TestApp.Session, _ template: JSONValue, field: String, reason: String
    ) async throws {
        let versions = try await RolloutFixture.versions(app).count
        let published = try await app.publish("shop-app", template)
        #expect(published.status == 400, "PUT: \(published.text)")
        #expect(published.errorFields == [field], "PUT: \(published.text)")
        #expect(published.errorReasons == [reason], "PUT: \(published.text)")
        let validated = try await app.call(
            .put, "/v1/projects/shop-app/remoteConfig?validateOnly=true", json: template, headers: [.ifMatch: "*"])
        #expect(validated.status == 400, "validateOnly answers what a publish would: \(validated.text)")
        let saved = try await app.call(.put, Self.draft, json: template, headers: [.ifMatch: "*"])
        #expect(saved.status == 400, "draft: \(saved.text)")
        #expect(saved.errorFields == [field], "draft: \(saved.text)")
        #expect(
            try await app.call(.get, Self.draft).value["parameters"]?["banner"]?["conditionalValues"]?
                .objectValue?.keys.contains { $0.hasPrefix("rollout_") } != true, "no draft kept it")
        let proposed = try await app.call(
            .post, "/v1/projects/shop-app/remoteConfig/changeRequests",
            body: CreateChangeRequestRequest(description: "banner", template: template))
        #expect(proposed.status == 400, "change request: \(proposed.text)")
        #expect(proposed.errorFields == ["template." + field], "change request: \(proposed.text)")
        #expect(try await RolloutFixture.versions(app).count == versions, "nothing was published")
    }

    @Test func noOtherParameterMayHaveAValueForALiveRolloutsCondition() async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(app, steps: RolloutFixture.heldSteps)
            let planted = RolloutFixture.withBannerValue(
                try await RolloutFixture.published(app), for: rollout.conditionName)
            try await Self.expectRefusedEverywhere(
                app, planted, field: "parameters.banner.conditionalValues.\(rollout.conditionName)",
                reason: "RESERVED_CONDITION_REFERENCE")
            // The rollout's own parameter keeps its value, and an edit elsewhere still publishes.
            let edited = try await app.publish("shop-app", try await RolloutFixture.published(app))
            #expect(edited.status == 200, "\(edited.text)")
            #expect(try await RolloutFixture.get(app, rollout).state == "RUNNING")
        }
    }

    @Test func aHaltOrACompletionRemovesTheConditionFromEveryParameterThatUsesIt() async throws {
        try await TestApp.run { app in
            let key = try await RolloutFixture.setUp(app)
            for action in ["halt", "complete"] {
                let rollout = try await RolloutFixture.start(app, steps: RolloutFixture.heldSteps)
                // A version from before the rule: banner has a value for the rollout's condition.
                try await RolloutFixture.plant(
                    app,
                    RolloutFixture.withBannerValue(
                        try await RolloutFixture.published(app), for: rollout.conditionName))
                let ended = try await RolloutFixture.act(app, rollout, action)
                #expect(ended.status == 200, "\(action): \(ended.text)")
                #expect(try RolloutFixture.decode(ended).state == (action == "halt" ? "HALTED" : "COMPLETED"))
                let template = try await RolloutFixture.published(app)
                #expect(!RolloutFixture.conditionNames(template).contains(rollout.conditionName))
                let banner = template["parameters"]?["banner"]?["conditionalValues"]?.objectValue?.keys ?? []
                #expect(banner == ["ios"], "\(action) removed banner's value for the condition too")
                // It stays ended: no step after it, whenever the next would have come.
                let after = try await RolloutFixture.get(app, rollout)
                #expect(after.history.count == 1, "\(action): no step after it ended")
                #expect(after.nextStepTime == nil)
                let fetched = try await ClientCalls.fetch(app, key: key, ["appInstanceId": "a", "platform": "IOS"])
                #expect(fetched.value["entries"]?["banner"] == "hello iOS")
            }
            // The hook halts such a rollout as well.
            let third = try await RolloutFixture.start(app, steps: RolloutFixture.heldSteps)
            try await RolloutFixture.plant(
                app,
                RolloutFixture.withBannerValue(try await RolloutFixture.published(app), for: third.conditionName))
            let hooked = try await app.call(
                .post, "/v1/rollouts/\(RolloutFixture.id(third)):halt", token: third.haltToken)
            #expect(hooked.status == 200, "\(hooked.text)")
            #expect(try await RolloutFixture.get(app, third).state == "HALTED")
        }
    }

    @Test func aRolloutsConditionNameCannotBeKnownBeforeItExists() async throws {
        try await TestApp.run { app in
            let key = try await RolloutFixture.setUp(app)
            // What a sequence would name the next rollout's condition, with a hidden value on banner waiting for
            // it. No rollout has that name, so it is an ordinary condition (a Firebase export may have one).
            let planted = RolloutFixture.withBannerValue(
                RolloutFixture.template, for: "rollout_1", defining: "false")
            #expect(try await app.publish("shop-app", planted).status == 200)
            var ids: [Int64] = []
            for _ in 0..<3 {
                let rollout = try await RolloutFixture.start(app, steps: [.init(percent: 100)])
                let id = try #require(Int64(RolloutFixture.id(rollout)))
                #expect(rollout.conditionName == "rollout_\(id)")
                #expect(id >= 1_000_000_000_000, "drawn at random from 2^53, not counted: \(rollout.name)")
                ids.append(id)
                let fetched = try await ClientCalls.fetch(app, key: key, ["appInstanceId": "a", "platform": "IOS"])
                #expect(fetched.value["entries"]?["new_checkout"] == "true")
                #expect(fetched.value["entries"]?["banner"] == "hello iOS", "nothing hidden shipped with it")
                #expect(try await RolloutFixture.act(app, rollout, "complete").status == 200)
            }
            #expect(Set(ids).count == 3)
        }
    }

    @Test func aProposedRolloutsConditionIsPublishedOnlyByTheChangeRequestThatStartsIt() async throws {
        try await TestApp.run { app in
            let key = try await RolloutFixture.setUp(app)
            try await Workflow.requireApproval(app, true)
            let author = try await app.createKey(role: "editor", project: "shop-app", name: "author").secret
            let reviewer = try await app.createKey(role: "editor", project: "shop-app", name: "reviewer").secret
            let proposed = try await RolloutFixture.start(app, steps: [.init(percent: 100)], token: author)
            // Its name is known while it waits: planting values for it is refused.
            let planted = RolloutFixture.withBannerValue(
                RolloutFixture.template, for: proposed.conditionName, defining: "false")
            let saved = try await app.call(.put, Self.draft, token: reviewer, json: planted, headers: [.ifMatch: "*"])
            #expect(saved.status == 400, "\(saved.text)")
            #expect(saved.errorFields == ["conditions[1].name"], "\(saved.text)")
            #expect(saved.errorReasons == ["RESERVED_CONDITION_NAME"], "\(saved.text)")
            let opened = try await app.call(
                .post, Workflow.base, token: reviewer,
                body: CreateChangeRequestRequest(description: "banner", template: planted))
            #expect(opened.status == 400, "\(opened.text)")
            #expect(opened.errorFields == ["template.conditions[1].name"], "\(opened.text)")
            let onlyValue = RolloutFixture.withBannerValue(try await RolloutFixture.published(app), for: "ios")
            #expect(
                try await app.call(.put, Self.draft, token: reviewer, json: onlyValue, headers: [.ifMatch: "*"])
                    .status == 200, "other edits are saved")

            let plan = String(try #require(proposed.changeRequest).dropFirst("changeRequests/".count))
            #expect(try await Workflow.act(app, plan, "approve", token: reviewer).status == 200)
            #expect(try await Workflow.act(app, plan, "publish", token: reviewer).status == 200)
            let fetched = try await ClientCalls.fetch(app, key: key, ["appInstanceId": "a", "platform": "IOS"])
            #expect(fetched.value["entries"]?["new_checkout"] == "true")
            #expect(fetched.value["entries"]?["banner"] == "hello iOS")
        }
    }

    @Test func creatingARolloutWhoseConditionNameExistsIsRefusedAndStoresNothing() async throws {
        let url = try await TestClusterURL.make()
        try await TestApp.run(url: url, rolloutIDs: RolloutFixture.drawing(4242)) { app in
            _ = try await RolloutFixture.setUp(app)
            // Only someone who knew the id could have put it there.
            #expect(
                try await app.publish(
                    "shop-app",
                    RolloutFixture.withBannerValue(RolloutFixture.template, for: "rollout_4242", defining: "false")
                ).status == 200)
            let refused = try await RolloutFixture.create(app, steps: [.init(percent: 10)])
            #expect(refused.status == 409, "\(refused.text)")
            #expect(refused.errorStatus == "ALREADY_EXISTS")
            #expect(refused.errorFields == ["conditionName"])
            #expect(refused.errorReasons == ["CONDITION_EXISTS"])
            #expect(refused.errorMessage?.contains("rollout_4242") == true, "\(refused.text)")
            #expect(try await RolloutFixture.versions(app).count == 2, "nothing published")
            #expect(try await app.call(.get, RolloutFixture.base).decode(RolloutList.self).rollouts.isEmpty)
            // Removing the condition clears the way, and the id is still free.
            #expect(try await app.publish("shop-app", RolloutFixture.template).status == 200)
            let rollout = try await RolloutFixture.start(app, steps: [.init(percent: 10)])
            #expect(rollout.name == "rollouts/4242")
        }
    }
}
