import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// While a project requires approval, creating a rollout proposes a change request that carries the plan;
/// publishing it starts the rollout, whose steps and halt then need no approval.
@Suite struct RolloutApprovalTests {
    static let changeRequests = "/v1/projects/shop-app/remoteConfig/changeRequests"

    @Test func anApprovedPlanStartsAndItsStepsAndHaltNeedNoFurtherApproval() async throws {
        try await TestApp.run { app in
            let key = try await RolloutFixture.setUp(app)
            let patched = try await app.call(
                .patch, "/v1/projects/shop-app", body: UpdateProjectRequest(requireApproval: true))
            #expect(patched.status == 200)
            let author = try await app.createKey(role: "editor", project: "shop-app", name: "author").secret
            let reviewer = try await app.createKey(role: "editor", project: "shop-app", name: "reviewer").secret

            let created = try await RolloutFixture.create(
                app, steps: [.init(percent: 10, holdSeconds: 3600), .init(percent: 100)], token: author)
            #expect(created.status == 201, "\(created.text)")
            let proposed = try RolloutFixture.decode(created)
            #expect(proposed.state == "PROPOSED")
            #expect(proposed.haltToken?.hasPrefix("rch_") == true)
            #expect(proposed.history.isEmpty)
            let changeRequest = try #require(proposed.changeRequest)
            #expect(changeRequest.hasPrefix("changeRequests/"))
            #expect(try await RolloutFixture.versions(app).count == 1, "nothing published before approval")
            let id = String(changeRequest.dropFirst("changeRequests/".count))
            let request = try await app.call(.get, "\(Self.changeRequests)/\(id)")
            let template = try request.decode(ChangeRequest.self).template
            let first = template?["conditions"]?[0]?["name"]?.stringValue
            #expect(first == proposed.conditionName, "the change request carries the first step")

            // Someone publishes meanwhile, through another approved change request: the plan still applies on top.
            let edited: JSONValue = [
                "conditions": RolloutFixture.template["conditions"] ?? [],
                "parameters": [
                    "new_checkout": ["defaultValue": ["value": "false"], "valueType": "BOOLEAN"],
                    "banner": ["defaultValue": ["value": "edited meanwhile"]],
                ],
            ]
            let other = try await app.call(
                .post, Self.changeRequests, token: author,
                body: CreateChangeRequestRequest(description: "banner", template: edited))
            let otherId = try other.decode(ChangeRequest.self).id
            #expect(
                try await app.call(
                    .post, "\(Self.changeRequests)/\(otherId):approve", token: reviewer, json: [:] as JSONValue
                )
                .status == 200)
            #expect(
                try await app.call(
                    .post, "\(Self.changeRequests)/\(otherId):publish", token: reviewer, json: [:] as JSONValue
                )
                .status == 200)

            let approved = try await app.call(
                .post, "\(Self.changeRequests)/\(id):approve", token: reviewer, json: [:] as JSONValue)
            #expect(approved.status == 200, "\(approved.text)")
            let published = try await app.call(
                .post, "\(Self.changeRequests)/\(id):publish", token: reviewer, json: [:] as JSONValue)
            #expect(published.status == 200, "\(published.text)")
            let running = try await RolloutFixture.get(app, proposed)
            #expect(running.state == "RUNNING")
            #expect(running.history.map(\.versionNumber) == ["3"])
            let now = try await RolloutFixture.published(app)
            #expect(now["parameters"]?["banner"]?["defaultValue"]?["value"]?.stringValue == "edited meanwhile")

            try await RolloutFixture.makeDue(app, running)
            let stepped = try await RolloutFixture.waitForSteps(app, running, 2)
            #expect(stepped.history.map(\.percent) == [10, 100], "the next step needed no approval")
            #expect(try await RolloutFixture.value(app, key: key, instance: "anyone") == "true")
            let halted = try await RolloutFixture.act(app, running, "halt", token: author)
            #expect(halted.status == 200, "a halt needs no approval: \(halted.text)")
            #expect(try await RolloutFixture.value(app, key: key, instance: "anyone") == "false")
            // Everyone else still needs approval to publish.
            #expect(try await app.publish("shop-app", RolloutFixture.template).status == 403)
        }
    }

    @Test func aRejectedPlanNeverStarts() async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            #expect(
                try await app.call(.patch, "/v1/projects/shop-app", body: UpdateProjectRequest(requireApproval: true))
                    .status == 200)
            let author = try await app.createKey(role: "editor", project: "shop-app", name: "author").secret
            let proposed = try await RolloutFixture.start(app, steps: [.init(percent: 10)], token: author)
            let id = String(try #require(proposed.changeRequest).dropFirst("changeRequests/".count))
            #expect(
                try await app.call(.post, "\(Self.changeRequests)/\(id):reject", json: [:] as JSONValue).status == 200)
            #expect(try await RolloutFixture.get(app, proposed).state == "HALTED")
            #expect(try await RolloutFixture.versions(app).count == 1)
            // The parameter is free for a new plan.
            #expect(try await RolloutFixture.create(app, steps: [.init(percent: 10)], token: author).status == 201)
        }
    }
}
