import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// A change request that carries a rollout's plan publishes the plan's first step over whatever is published
/// then; when that step no longer fits the template, the publish is refused as any invalid publish is.
@Suite struct RolloutCarriedStepTests {
    static let changeRequests = "/v1/projects/shop-app/remoteConfig/changeRequests"

    @Test func aCarriedStepThatNoLongerFitsIsA400NamingTheField() async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            #expect(
                try await app.call(.patch, "/v1/projects/shop-app", body: UpdateProjectRequest(requireApproval: true))
                    .status == 200)
            let author = try await app.createKey(role: "editor", project: "shop-app", name: "author").secret
            let reviewer = try await app.createKey(role: "editor", project: "shop-app", name: "reviewer").secret
            let proposed = try await RolloutFixture.start(app, steps: [.init(percent: 10)], token: author)
            let id = String(try #require(proposed.changeRequest).dropFirst("changeRequests/".count))

            // Meanwhile `new_checkout` becomes a NUMBER: the plan's value `true` no longer fits it.
            let retyped: JSONValue = [
                "conditions": RolloutFixture.template["conditions"] ?? [],
                "parameters": [
                    "new_checkout": ["defaultValue": ["value": "0"], "valueType": "NUMBER"],
                    "banner": ["defaultValue": ["value": "hello"]],
                ],
            ]
            let other = try await app.call(
                .post, Self.changeRequests, token: author,
                body: CreateChangeRequestRequest(description: "retype", template: retyped))
            let otherId = try other.decode(ChangeRequest.self).id
            for action in ["approve", "publish"] {
                let reply = try await app.call(
                    .post, "\(Self.changeRequests)/\(otherId):\(action)", token: reviewer, json: [:] as JSONValue)
                #expect(reply.status == 200, "\(reply.text)")
            }

            #expect(
                try await app.call(
                    .post, "\(Self.changeRequests)/\(id):approve", token: reviewer, json: [:] as JSONValue
                ).status == 200)
            let published = try await app.call(
                .post, "\(Self.changeRequests)/\(id):publish", token: reviewer, json: [:] as JSONValue)
            #expect(published.status == 400, "\(published.text)")
            #expect(published.errorStatus == "INVALID_ARGUMENT")
            #expect(
                published.errorFields.contains { $0.contains("new_checkout") }, "the field at fault: \(published.text)")
            #expect(try await RolloutFixture.versions(app).count == 2, "nothing published")
            #expect(try await RolloutFixture.get(app, proposed).state == "PROPOSED")
        }
    }
}
