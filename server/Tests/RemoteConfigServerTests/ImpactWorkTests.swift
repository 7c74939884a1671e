import Foundation
import NIOConcurrencyHelpers
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

#if canImport(Glibc)
    import Glibc
#endif

/// Impact estimates run on threads of their own, bounded per caller, and stop when their caller goes away:
/// abandoned estimates do not run to the end, and one viewer's queue cannot starve another's.
@Suite struct ImpactWorkTests {
    static let path = "/v1/projects/heavy-app/remoteConfig:impact"

    /// A template whose every resolve is slow (backtracking-shaped patterns, which RE2 runs in linear time but
    /// not for free), and a sample of `count` contexts that reach those conditions.
    static func heavyProject(_ app: TestApp.Session, count: Int) async throws -> JSONValue {
        try await app.createProject("heavy-app")
        let template = SlowTemplate.template
        try #require(try await app.publish("heavy-app", template).status == 200)
        let contexts: [JSONValue] = (0..<count).map { index in
            [
                "appInstanceId": .string("i-\(index)"), "platform": "IOS", "appVersion": "2.0.0",
                "customSignals": ["x": .string(String(repeating: "a", count: 40) + "!")],
            ]
        }
        // In parts: one insert of them all may outlast the database deadline on a loaded machine.
        for start in stride(from: 0, to: contexts.count, by: 500) {
            try await InsightSampleRows.insert(
                app.database, project: "heavy-app", contexts: Array(contexts[start..<min(start + 500, contexts.count)]))
        }
        var candidate = template.objectValue ?? [:]
        candidate["parameters"] = ["banner": ["defaultValue": ["value": "other"]]]
        return .object(candidate)
    }

    static func request(_ token: String, _ candidate: JSONValue) -> String {
        let body = String(decoding: JSONValue.object(["template": candidate]).jsonBytes(), as: UTF8.self)
        return "POST \(path) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    @Test func estimatesRunOnlyWhereTheEventLoopsLeaveACoreIdle() async throws {
        #if os(Linux)
            let work = ImpactWork()
            await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await work.run() }
                let seen = NIOLockedValueBox<Int32?>(nil)
                // Nothing to estimate: the work only reports the policy it ran under (and then counts as abandoned).
                _ = try? await work.estimate(callerGone: { false }) { _ in
                    seen.withLockedValue { $0 = sched_getscheduler(0) }
                    return nil
                }
                #expect(seen.withLockedValue { $0 } == ImpactWork.idlePolicy)
                // Only that thread: this one, like the event loops, keeps the normal policy.
                #expect(sched_getscheduler(0) == 0)
                group.cancelAll()
            }
        #endif
    }

    @Test func anEstimateWhoseCallerHungUpStops() async throws {
        try await TestApp.live { app in
            let candidate = try await Self.heavyProject(app, count: 10_000)
            let viewer = try await app.createKey(role: "viewer", project: "heavy-app")
            let work = app.environment.impactWork
            let connection = try RawConnection(port: app.port)
            connection.send(Self.request(viewer.secret, candidate))
            // Hang up once the estimate runs (reading the sample first may take a while on a loaded machine).
            let started = ContinuousClock.now + .seconds(30)
            while work.running.withLockedValue({ $0 }) == 0, ContinuousClock.now < started {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(work.running.withLockedValue { $0 } == 1, "the estimate started")
            connection.close()
            let limit = ContinuousClock.now + .seconds(20)
            while work.abandoned.withLockedValue({ $0 }) == 0, ContinuousClock.now < limit {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(work.abandoned.withLockedValue { $0 } == 1, "the abandoned estimate stopped before its end")
        }
    }

    @Test func oneCallersQueueIsBoundedAndStarvesNoOne() async throws {
        try await TestApp.live { app in
            let candidate = try await Self.heavyProject(app, count: 10_000)
            let viewer = try await app.createKey(role: "viewer", project: "heavy-app")
            let other = try await app.createKey(role: "viewer", project: "heavy-app")
            var held: [RawConnection] = []
            for _ in 0..<2 {
                let connection = try RawConnection(port: app.port)
                connection.send(Self.request(viewer.secret, candidate))
                held.append(connection)
            }
            let work = app.environment.impactWork
            let started = ContinuousClock.now + .seconds(30)
            while work.running.withLockedValue({ $0 }) == 0, ContinuousClock.now < started {
                try await Task.sleep(for: .milliseconds(10))
            }
            let third = try RawConnection(port: app.port)
            third.send(Self.request(viewer.secret, candidate))
            let refused = try await third.response(timeout: .seconds(10))
            #expect(refused?.status == 429, "a third estimate of the same caller waits for none")
            #expect(refused?.headers["retry-after"] != nil)
            // Another caller is admitted while the first one's two run or wait, and is answered once they end
            // (here: their caller hangs up, so they stop at once).
            let another = try RawConnection(port: app.port)
            another.send(Self.request(other.secret, candidate))
            try await Task.sleep(for: .milliseconds(300))
            for connection in held { connection.close() }
            // A bound for a stall, not a timing: estimates take only cores the event loops leave idle, and a
            // whole suite on 2 cores leaves few.
            let answered = try await another.response(timeout: .seconds(180))
            #expect(answered?.status == 200, "\(String(decoding: answered?.body ?? Data(), as: UTF8.self))")
        }
    }
}
