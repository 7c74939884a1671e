import Foundation
import NIOConcurrencyHelpers
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// Heavy work for a caller that hung up is not done; the threads belong to the application.
@Suite struct HeavyWorkTests {
    @Test("the heavy-work threads run while the application runs and stop when it stops")
    func ownedByTheApplication() async throws {
        let heavyWork = try await TestApp.run { app throws -> HeavyWork in
            let heavyWork = app.environment.heavyWork
            let answer = try await heavyWork.run { 6 * 7 }
            #expect(answer == 42)
            return heavyWork
        }
        await #expect(throws: (any Error).self, "work accepted after the application stopped") {
            try await heavyWork.run { 1 }
        }
        let other = try await TestApp.run { app in app.environment.heavyWork }
        #expect(other !== heavyWork, "each application has threads of its own")
    }

    @Test func heavyFetchesOfClientsThatHungUpAreSkipped() async throws {
        try await TestApp.live { app in
            try await app.createProject("heavy-app")
            #expect(try await app.publish("heavy-app", SlowTemplate.template).status == 200)
            let key = try await app.createKey(role: "client", project: "heavy-app")
            let body = #"{"appInstanceId":"i","customSignals":{"x":"aaaa!"}}"#
            let request =
                "POST /v1/projects/heavy-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nX-API-Key: \(key.secret)\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"

            // Hold every heavy-work thread until released, so the fetches below queue.
            let heavyWork = app.environment.heavyWork
            let threads = heavyWork.threadCount
            let holding = NIOLockedValueBox(true)
            let held = NIOLockedValueBox(0)
            let release = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<threads {
                        group.addTask {
                            _ = try await heavyWork.run {
                                held.withLockedValue { $0 += 1 }
                                let limit = ContinuousClock.now + .seconds(30)
                                while holding.withLockedValue({ $0 }), ContinuousClock.now < limit { usleep(1_000) }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            // The waits below are bounded generously: they are about order (queued, then abandoned), not speed.
            let start = ContinuousClock.now
            while held.withLockedValue({ $0 }) < threads, ContinuousClock.now < start + .seconds(20) {
                try await Task.sleep(for: .milliseconds(10))
            }
            let before = heavyWork.skipped.withLockedValue { $0 }
            let waitingBefore = heavyWork.waiting.withLockedValue { $0 }
            var abandoned: [RawConnection] = []
            for _ in 0..<5 {
                let connection = try RawConnection(port: app.port)
                connection.send(request)
                abandoned.append(connection)
            }
            // Hang up only once the five fetches wait for a thread (on a loaded machine the server may read
            // them late), so the test is about skipping, not about how fast the machine is.
            let queued = ContinuousClock.now + .seconds(20)
            while heavyWork.waiting.withLockedValue({ $0 }) < waitingBefore + 5, ContinuousClock.now < queued {
                try await Task.sleep(for: .milliseconds(10))
            }
            for connection in abandoned { connection.close() }
            // The server notices each hang-up on its event loop and cancels the queued work; the pool drops it
            // when a thread frees up. Half a second is room for noticing, not a speed requirement.
            try await Task.sleep(for: .milliseconds(500))
            holding.withLockedValue { $0 = false }
            try await release.value
            // The pool works through its queue: the five abandoned fetches are skipped, not evaluated.
            let connection = try RawConnection(port: app.port)
            connection.send(request)
            #expect(try await connection.response()?.status == 200)
            let skipped = heavyWork.skipped.withLockedValue { $0 } - before
            #expect(skipped >= 5, "only \(skipped) of 5 abandoned heavy fetches were skipped")
        }
    }
}
