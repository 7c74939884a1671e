import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// A server SIGKILLed in the middle of a rollout, and PostgreSQL stopped without warning and started again,
/// leave the rollout on the right step with no step published twice.
@Suite struct RolloutFaultTests {
    static let token = "rc_admin_rolloutFaultTests00000000000000"
    static var plan: [RolloutStep] {
        [
            .init(percent: 1, holdSeconds: 1), .init(percent: 10, holdSeconds: 1), .init(percent: 25, holdSeconds: 1),
            .init(percent: 50, holdSeconds: 1), .init(percent: 100),
        ]
    }

    static func start(_ url: DatabaseURL) async throws -> (ServerProcess, String) {
        let server = try ServerProcess(
            ["serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url)],
            environment: ["RC_ADMIN_TOKEN": token])
        return (server, "http://127.0.0.1:\(try await server.waitUntilListening())")
    }

    static func call(_ method: String, _ url: String, _ body: Data? = nil, ifMatch: String? = nil) async throws
        -> HTTP.Reply
    {
        var headers = ["Authorization": "Bearer \(token)"]
        if let ifMatch { headers["If-Match"] = ifMatch }
        return try await HTTP.request(method, url, headers: headers, body: body)
    }

    /// Polls the rollout (tolerating a server or database that is away) until it has `steps` published steps.
    static func waitForSteps(_ read: () async throws -> RemoteConfigAPI.Rollout?, _ steps: Int, limit: Duration) async
        -> RemoteConfigAPI.Rollout?
    {
        let deadline = ContinuousClock.now + limit
        var last: RemoteConfigAPI.Rollout?
        while ContinuousClock.now < deadline {
            if let rollout = try? await read() {
                last = rollout
                if rollout.history.count >= steps { return rollout }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return last
    }

    @Test func aServerKilledMidRolloutLeavesItOnTheRightStepWithNoStepPublishedTwice() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let (first, base) = try await Self.start(url)
        defer { Task { await first.stop() } }
        #expect(
            try await Self.call(
                "POST", base + "/v1/projects", try HTTP.encoded(CreateProjectRequest(projectId: "shop-app"))
            ).status == 201)
        let published = try await Self.call(
            "PUT", base + "/v1/projects/shop-app/remoteConfig", HTTP.json(RolloutFixture.template), ifMatch: "*")
        #expect(published.status == 200)
        let created = try await Self.call(
            "POST", base + "/v1/projects/shop-app/rollouts",
            try HTTP.encoded(RolloutCreate(parameter: "new_checkout", value: "true", steps: Self.plan)))
        #expect(created.status == 201)
        let rollout = try created.decode(RemoteConfigAPI.Rollout.self)
        let path = "/v1/projects/shop-app/rollouts/\(RolloutFixture.id(rollout))"
        func read(_ base: String) async throws -> RemoteConfigAPI.Rollout? {
            let reply = try await Self.call("GET", base + path)
            return reply.status == 200 ? try reply.decode(RemoteConfigAPI.Rollout.self) : nil
        }
        let before = await Self.waitForSteps({ try await read(base) }, 2, limit: .seconds(10))
        try #require(before?.history.count == 2)
        first.signal(SIGKILL)
        _ = try await first.waitForExit()
        // The next step comes due while no server runs.
        try await Task.sleep(for: .milliseconds(1200))

        let (second, newBase) = try await Self.start(url)
        defer { Task { await second.stop() } }
        let after = await Self.waitForSteps({ try await read(newBase) }, 5, limit: .seconds(20))
        #expect(after?.history.map(\.step) == [0, 1, 2, 3, 4])
        #expect(after?.currentStep == 4)
        try await Task.sleep(for: .milliseconds(1200))
        let versions = try await Self.call("GET", newBase + "/v1/projects/shop-app/remoteConfig:listVersions")
        let list = try JSONValue(parsing: [UInt8](versions.body))["versions"]?.arrayValue ?? []
        #expect(list.count == 6, "version 1 and one per step: \(list.count)")
        #expect(list.prefix(5).allSatisfy { $0["updateOrigin"]?.stringValue == "ROLLOUT" })
        #expect(Set(after?.history.map(\.versionNumber) ?? []).count == 5)
        let log = try await Self.call("GET", newBase + "/v1/projects/shop-app/auditLog?pageSize=1000")
        let steps = try APIDecoder.decode(AuditLogPage.self, from: [UInt8](log.body)).events.filter {
            $0.action == "rollout.step"
        }
        #expect(steps.count == 5)
    }

    @Test func aPostgreSQLRestartMidRolloutLeavesItOnTheRightStepWithNoStepPublishedTwice() async throws {
        let cluster = try await PrivateCluster.start()
        defer { cluster.destroy() }
        try await TestApp.run(url: cluster.url) { app in
            _ = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(app, steps: Self.plan)
            let before = await Self.waitForSteps({ try await RolloutFixture.get(app, rollout) }, 2, limit: .seconds(10))
            try #require(before?.history.count == 2)
            // As if it crashed: no checkpoint, connections cut. A step comes due while it is down.
            cluster.embedded.stopImmediately()
            try await Task.sleep(for: .milliseconds(1500))
            _ = try cluster.embedded.start()
            let after = await Self.waitForSteps(
                { try await RolloutFixture.get(app, rollout) }, 5, limit: .seconds(30))
            #expect(after?.history.map(\.step) == [0, 1, 2, 3, 4])
            try await Task.sleep(for: .milliseconds(1200))
            let versions = try await RolloutFixture.versions(app)
            #expect(versions.count == 6, "version 1 and one per step: \(versions.count)")
            #expect(try await RolloutFixture.actions(app).filter { $0 == "rollout.step" }.count == 5)
        }
    }
}
