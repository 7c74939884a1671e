import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigAPI
import RemoteConfigTestSupport
import Testing

/// The alert hook `POST /v1/rollouts/{id}:halt`: the rollout's own halt token, whatever body a monitoring tool
/// sends; repeated calls are harmless; the token opens nothing else.
@Suite struct RolloutHaltHookTests {
    static func hook(_ rollout: Rollout) -> String { "/v1/rollouts/\(RolloutFixture.id(rollout)):halt" }

    static func halt(
        _ app: TestApp.Session, _ rollout: Rollout, token: String?, body: String? = nil, contentType: String? = nil
    ) async throws -> TestApp.Reply {
        var headers = HTTPFields()
        if let contentType { headers[.contentType] = contentType }
        return try await app.call(
            .post, hook(rollout), token: token, raw: body.map { ByteBuffer(string: $0) }, headers: headers)
    }

    @Test func anAlertWithTheHaltTokenHaltsAtOnceAndARepeatPublishesNothing() async throws {
        try await TestApp.run { app in
            let key = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(app, steps: [.init(percent: 100)])
            #expect(try await RolloutFixture.value(app, key: key, instance: "someone") == "true")
            let token = try #require(rollout.haltToken)
            // What Prometheus Alertmanager sends: JSON about the alert, which decides nothing here.
            let alert = #"{"version":"4","status":"firing","alerts":[{"labels":{"alertname":"CrashRate"}}]}"#
            let started = ContinuousClock.now
            let first = try await Self.halt(app, rollout, token: token, body: alert, contentType: "application/json")
            let took = ContinuousClock.now - started
            #expect(first.status == 200, "\(first.text)")
            let answer = try first.decode(RolloutHaltAnswer.self)
            #expect(
                answer == RolloutHaltAnswer(name: rollout.name, state: "HALTED", versionNumber: "3", published: true))
            #expect(took < .seconds(1), "halted in \(took)")
            #expect(try await RolloutFixture.value(app, key: key, instance: "someone") == "false")

            // A form body, then none at all: answered the same, nothing more published.
            let again = try await Self.halt(
                app, rollout, token: token, body: "payload=%7B%7D", contentType: "application/x-www-form-urlencoded")
            #expect(again.status == 200)
            #expect(
                try again.decode(RolloutHaltAnswer.self)
                    == RolloutHaltAnswer(name: rollout.name, state: "HALTED", versionNumber: "3", published: false))
            #expect(try await Self.halt(app, rollout, token: token).status == 200)
            #expect(try await RolloutFixture.versions(app).count == 3)
            let events = try await app.call(.get, "/v1/projects/shop-app/auditLog")
            let halt = try events.decode(AuditLogPage.self).events.first { $0.action == "rollout.halt" }
            #expect(halt?.actor.displayName == "halt token of \(rollout.name)")
        }
    }

    @Test func aLargeBodyIsReadOnlyUpToItsBound() async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(app, steps: [.init(percent: 10)])
            let big = String(repeating: "x", count: 900 * 1024)
            let reply = try await Self.halt(
                app, rollout, token: rollout.haltToken, body: big, contentType: "text/plain")
            #expect(reply.status == 200, "\(reply.status)")
            #expect(try await RolloutFixture.get(app, rollout).state == "HALTED")
        }
    }

    @Test func theTokenOpensNothingElse() async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(app, steps: [.init(percent: 10)])
            let token = try #require(rollout.haltToken)
            // Not an API key: every other route refuses it, the admin ones first.
            #expect(try await app.call(.get, "/v1/projects", token: token).status == 401)
            #expect(
                try await app.call(
                    .post, "/v1/apiKeys", token: token, body: CreateAPIKeyRequest(displayName: "x", role: "admin")
                ).status == 401)
            #expect(try await app.call(.get, RolloutFixture.base, token: token).status == 401)
            #expect(try await RolloutFixture.act(app, rollout, "halt", token: token).status == 401)
            // Nor does it halt another rollout.
            #expect(try await RolloutFixture.act(app, rollout, "complete").status == 200)
            let other = try await RolloutFixture.start(app, steps: [.init(percent: 10)])
            #expect(try await Self.halt(app, other, token: token).status == 401)
            // A wrong token, an API key and no token are refused alike, and halt nothing.
            #expect(try await Self.halt(app, other, token: "rch_wrong").status == 401)
            #expect(try await Self.halt(app, other, token: TestApp.adminToken).status == 401)
            let none = try await Self.halt(app, other, token: nil)
            #expect(none.status == 401)
            #expect(none.errorStatus == "UNAUTHENTICATED")
            #expect(try await RolloutFixture.get(app, other).state == "RUNNING")
            #expect(try await app.call(.post, "/v1/rollouts/99999:halt", token: "rch_nothing").status == 401)
        }
    }
}
