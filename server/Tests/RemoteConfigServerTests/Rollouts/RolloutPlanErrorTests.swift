import Foundation
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// A rollout whose own inputs would break the template it publishes is refused naming `audience` or `value`
/// (never a field of the generated template, which the caller never wrote), and a refused create stores and
/// uses up nothing: the next rollout gets the id the refused one drew.
@Suite struct RolloutPlanErrorTests {
    /// 50 atoms: a condition of its own, but one too many with the rollout's `percent` atom beside them.
    static let fiftyAtoms = Array(repeating: "device.os == 'ios'", count: 50).joined(separator: " && ")

    /// Bodies (JSON text) each refused for the one input at fault, with its reason.
    static let cases: [(String, String, String)] = [
        (
            #"{"parameter": "new_checkout", "value": "true", "steps": [{"percent": 10}], "audience": "\#(fiftyAtoms)"}"#,
            "audience", "LIMIT_EXCEEDED"
        ),
        (#"{"parameter": "banner", "value": "a\u0001b", "steps": [{"percent": 10}]}"#, "value", "INVALID_CHARACTER"),
    ]

    /// `POST …/rollouts` with `body` as written.
    static func create(_ app: TestApp.Session, _ body: String) async throws -> TestApp.Reply {
        try await app.call(
            .post, RolloutFixture.base, raw: ByteBuffer(string: body), headers: [.contentType: "application/json"])
    }

    /// Expects `reply` to refuse `field` for `reason`, with nothing created or published.
    static func expectRefused(
        _ app: TestApp.Session, _ reply: TestApp.Reply, field: String, reason: String, versions: Int
    ) async throws {
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.errorFields == [field], "\(reply.text)")
        #expect(reply.errorReasons == [reason], "\(reply.text)")
        #expect(reply.errorMessage?.contains("rollout_") == false, "no generated name in: \(reply.text)")
        #expect(try await app.call(.get, RolloutFixture.base).decode(RolloutList.self).rollouts.isEmpty)
        #expect(try await RolloutFixture.versions(app).count == versions)
        let actions = try await RolloutFixture.actions(app)
        #expect(!actions.contains { $0.hasPrefix("rollout.") || $0.hasPrefix("changeRequest.") }, "\(actions)")
    }

    /// Runs `body` against an application whose every new rollout draws the id 77.
    static func run(_ body: @Sendable (TestApp.Session) async throws -> Void) async throws {
        let url = try await TestClusterURL.make()
        try await TestApp.run(url: url, rolloutIDs: RolloutFixture.drawing(77), body)
    }

    @Test(arguments: cases)
    func anInputThatBreaksTheGeneratedTemplateIsRefusedByItsOwnName(body: String, field: String, reason: String)
        async throws
    {
        try await Self.run { app in
            _ = try await RolloutFixture.setUp(app)
            try await Self.expectRefused(
                app, try await Self.create(app, body), field: field, reason: reason, versions: 1)
            let next = try await RolloutFixture.start(app, steps: [.init(percent: 10)])
            #expect(next.name == "rollouts/77", "the refused create kept its id")
        }
    }

    @Test func aValueThatTakesTheTemplateOverItsCharacterLimitIsRefusedAsTheValue() async throws {
        try await Self.run { app in
            _ = try await RolloutFixture.setUp(app)
            // Every other value together: exactly the limit of 1,000,000 characters.
            let others = "hello iOS".count + "false".count
            var full = RolloutFixture.template.objectValue ?? [:]
            var parameters = full["parameters"]?.objectValue ?? [:]
            var banner = parameters["banner"]?.objectValue ?? [:]
            banner["defaultValue"] = ["value": .string(String(repeating: "x", count: 1_000_000 - others))]
            parameters["banner"] = .object(banner)
            full["parameters"] = .object(parameters)
            #expect(try await app.publish("shop-app", .object(full)).status == 200)
            let reply = try await Self.create(
                app, #"{"parameter": "banner", "value": "one more", "steps": [{"percent": 10}]}"#)
            try await Self.expectRefused(app, reply, field: "value", reason: "LIMIT_EXCEEDED", versions: 2)
            #expect(try await app.publish("shop-app", RolloutFixture.template).status == 200)
            let next = try await RolloutFixture.start(app, steps: [.init(percent: 10)])
            #expect(next.name == "rollouts/77", "the refused create kept its id")
        }
    }
}
