import Foundation
import PostgresNIO
import RemoteConfigAPI
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// Two servers on one database publish each step once, on time; a server that starts after a step's time
/// publishes it at once.
@Suite struct RolloutReplicaTests {
    @Test func twoServersPublishEachStepExactlyOnce() async throws {
        let url = try await TestClusterURL.make()
        try await TestApp.run(url: url) { one in
            try await TestApp.run(url: url) { two in
                _ = try await RolloutFixture.setUp(one)
                let rollout = try await RolloutFixture.start(
                    one,
                    steps: [
                        .init(percent: 1, holdSeconds: 1), .init(percent: 10, holdSeconds: 1),
                        .init(percent: 50, holdSeconds: 1), .init(percent: 100),
                    ])
                let done = try await RolloutFixture.waitForSteps(two, rollout, 4, limit: .seconds(10))
                #expect(done.history.map(\.step) == [0, 1, 2, 3])
                // Both servers looked again after the last step: a second publish of any step would be here now.
                try await Task.sleep(for: .milliseconds(1500))
                let versions = try await RolloutFixture.versions(one)
                #expect(versions.count == 5, "version 1 and one per step: \(versions.count)")
                #expect(versions.prefix(4).allSatisfy { $0["updateOrigin"] == "ROLLOUT" })
                #expect(try await RolloutFixture.actions(two).filter { $0 == "rollout.step" }.count == 4)
                let times = done.history.compactMap { try? Date($0.time, strategy: .iso8601) }
                for (earlier, later) in zip(times, times.dropFirst()) {
                    let gap = later.timeIntervalSince(earlier)
                    #expect(gap >= 0.99 && gap < 2.5, "a step came \(gap) s after the one before (hold 1 s)")
                }
                print(
                    "rollout on two servers: steps \(zip(times, times.dropFirst()).map { String(format: "%.2f", $1.timeIntervalSince($0)) }) s apart"
                )
            }
        }
    }

    @Test func manyRoundsAtOnceStillPublishEachStepOnce() async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            let rollout = try await RolloutFixture.start(
                app,
                steps: RolloutFixture.heldSteps)
            // Eight rounds race the server's own scheduler for each step, as eight replicas would.
            let store = RolloutStore(database: app.database)
            for step in 1...3 {
                try await RolloutFixture.makeDue(app, rollout)
                let published = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<8 { group.addTask { try await store.publishDue().count } }
                    return try await group.reduce(0, +)
                }
                let now = try await RolloutFixture.waitForSteps(app, rollout, step + 1)
                #expect(now.currentStep == step)
                #expect(published <= 1, "step \(step) published by \(published) rounds")
            }
            try await Task.sleep(for: .milliseconds(1200))
            #expect(try await RolloutFixture.versions(app).count == 5)
            #expect(try await RolloutFixture.get(app, rollout).history.map(\.step) == [0, 1, 2, 3])
        }
    }

    @Test func aServerStartedAfterAStepsTimePublishesItAtOnce() async throws {
        let url = try await TestClusterURL.make()
        let rollout = try await TestApp.run(url: url) { app in
            _ = try await RolloutFixture.setUp(app)
            return try await RolloutFixture.start(
                app, steps: [.init(percent: 5, holdSeconds: 3600), .init(percent: 100)])
        }
        // The hold ends while no server runs.
        try await withRunningDatabase(url: url) { database in
            try await database.run { client in
                for try await _ in try await client.query(
                    "UPDATE rollouts SET next_step_at = now() - interval '1 minute'")
                {}
            }
        }
        try await TestApp.run(url: url) { app in
            let started = ContinuousClock.now
            let done = try await RolloutFixture.waitForSteps(app, rollout, 2, limit: .seconds(5))
            #expect(done.history.map(\.percent) == [5, 100])
            print("a restarted server published a missed rollout step after \(ContinuousClock.now - started)")
            #expect(try await RolloutFixture.versions(app).count == 3)
        }
    }
}
