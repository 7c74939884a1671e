import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// While a project requires approval, completing a rollout is a change like any other: `:complete` opens a
/// change request carrying the completion, and the rollout completes when that is approved and published. An
/// approved plan of "1% of beta testers" never becomes "100% of everyone" on one editor's say.
@Suite struct RolloutCompletionApprovalTests {
    static let changeRequests = "/v1/projects/shop-app/remoteConfig/changeRequests"

    /// `shop-app` requiring approval, with a running rollout of `new_checkout` to 1% of iOS apps (its plan
    /// approved and published), and the author's and a reviewer's keys.
    static func running(_ app: TestApp.Session) async throws -> (Rollout, author: String, reviewer: String) {
        _ = try await RolloutFixture.setUp(app)
        try await Workflow.requireApproval(app, true)
        let author = try await app.createKey(role: "editor", project: "shop-app", name: "author").secret
        let reviewer = try await app.createKey(role: "editor", project: "shop-app", name: "reviewer").secret
        let proposed = try await RolloutFixture.start(
            app, steps: [.init(percent: 1, holdSeconds: 3600), .init(percent: 100)], audience: "device.os == 'ios'",
            token: author)
        let plan = try Self.number(try #require(proposed.changeRequest))
        #expect(try await Workflow.act(app, plan, "approve", token: reviewer).status == 200)
        #expect(try await Workflow.act(app, plan, "publish", token: reviewer).status == 200)
        let running = try await RolloutFixture.get(app, proposed)
        try SetupFailure.unless(running.state == "RUNNING", "the plan did not start: \(running)")
        return (running, author, reviewer)
    }

    /// `<id>` of `changeRequests/<id>`.
    static func number(_ name: String) throws -> String {
        String(name.dropFirst("changeRequests/".count))
    }

    @Test func completingOpensAChangeRequestAndCompletesOnlyWhenItIsApprovedAndPublished() async throws {
        try await TestApp.run { app in
            let (rollout, author, reviewer) = try await Self.running(app)
            let versions = try await RolloutFixture.versions(app).count
            let asked = try await RolloutFixture.act(app, rollout, "complete", token: author)
            #expect(asked.status == 200, "\(asked.text)")
            let pending = try RolloutFixture.decode(asked)
            #expect(pending.state == "RUNNING", "nothing completes before approval")
            let request = try #require(pending.changeRequest)
            #expect(request != rollout.changeRequest, "a change request of its own, not the plan's")
            #expect(try await RolloutFixture.versions(app).count == versions, "nothing published")
            let published = try await RolloutFixture.published(app)
            #expect(published["parameters"]?["new_checkout"]?["defaultValue"]?["value"] == "false")

            // Asking again opens nothing more.
            let again = try RolloutFixture.decode(try await RolloutFixture.act(app, rollout, "complete", token: author))
            #expect(again.changeRequest == request)
            let open = try await app.call(.get, Self.changeRequests + "?state=OPEN").changeRequests.changeRequests
            #expect(open.map(\.name) == [request])

            let id = try Self.number(request)
            let carried = try await Workflow.get(app, id).changeRequest
            #expect(carried.author.displayName == "author")
            #expect(carried.template?["parameters"]?["new_checkout"]?["defaultValue"]?["value"] == "true")
            #expect(carried.template.map(RolloutFixture.conditionNames)?.contains(rollout.conditionName) == false)
            #expect(try await Workflow.act(app, id, "publish", token: author).status == 403, "not approved yet")
            #expect(try await Workflow.act(app, id, "approve", token: author).status == 403, "not by its author")
            #expect(try await Workflow.act(app, id, "approve", token: reviewer).status == 200)
            let done = try await Workflow.act(app, id, "publish", token: reviewer)
            #expect(done.status == 200, "\(done.text)")
            let version = try done.changeRequest.publishedVersionNumber

            let completed = try await RolloutFixture.get(app, rollout)
            #expect(completed.state == "COMPLETED")
            #expect(completed.endVersionNumber == version)
            let template = try await RolloutFixture.published(app)
            #expect(template["parameters"]?["new_checkout"]?["defaultValue"]?["value"] == "true")
            #expect(!RolloutFixture.conditionNames(template).contains(rollout.conditionName))
            #expect(template["version"]?["updateOrigin"] == "CHANGE_REQUEST")
        }
    }

    @Test func aRejectedCompletionLeavesItRunningAndAHaltCancelsAnOpenOne() async throws {
        try await TestApp.run { app in
            let (rollout, author, reviewer) = try await Self.running(app)
            let first = try RolloutFixture.decode(try await RolloutFixture.act(app, rollout, "complete", token: author))
            let firstID = try Self.number(try #require(first.changeRequest))
            #expect(try await Workflow.act(app, firstID, "reject", token: reviewer).status == 200)
            #expect(try await RolloutFixture.get(app, rollout).state == "RUNNING")

            let second = try RolloutFixture.decode(
                try await RolloutFixture.act(app, rollout, "complete", token: author))
            let secondID = try Self.number(try #require(second.changeRequest))
            #expect(secondID != firstID, "a rejected completion can be asked for again")
            let halted = try await RolloutFixture.act(app, rollout, "halt", token: author)
            #expect(halted.status == 200, "a halt needs no approval: \(halted.text)")
            #expect(try RolloutFixture.decode(halted).state == "HALTED")
            #expect(try await Workflow.get(app, secondID).changeRequest.state == "CANCELLED")
            #expect(try await Workflow.act(app, secondID, "approve", token: reviewer).status == 409)
        }
    }
}
