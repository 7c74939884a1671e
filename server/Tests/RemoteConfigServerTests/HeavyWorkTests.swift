import Foundation
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// Heavy work for a caller that hung up is not done.
@Suite struct HeavyWorkTests {
    @Test func heavyFetchesOfClientsThatHungUpAreSkipped() async throws {
        try await TestApp.live { app in
            try await app.createProject("heavy-app")
            let atom = "app.customSignal['x'].matches(['(a+)+$', '(a|aa)*b'])"
            let expression = Array(repeating: atom, count: 10).joined(separator: " || ")
            let conditions = (0..<40).map { ["name": "c\($0)", "expression": expression] }
            let values = Dictionary(uniqueKeysWithValues: (0..<40).map { ("c\($0)", ["value": "v"]) })
            let template: [String: Any] = [
                "conditions": conditions,
                "parameters": ["banner": ["defaultValue": ["value": "none"], "conditionalValues": values]],
            ]
            #expect(try await app.publish("heavy-app", template).status == 200)
            let key = try await app.createKey(role: "client", project: "heavy-app")
            let body = #"{"appInstanceId":"i","customSignals":{"x":"aaaa!"}}"#
            let request =
                "POST /v1/projects/heavy-app/remoteConfig:fetch HTTP/1.1\r\nHost: t\r\nX-API-Key: \(key.secret)\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"

            // Hold every heavy-work thread, so the fetches below queue.
            let threads = HeavyWork.threadCount
            let release = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<threads {
                        group.addTask { _ = try await HeavyWork.run { usleep(600_000) } }
                    }
                    try await group.waitForAll()
                }
            }
            try await Task.sleep(for: .milliseconds(50))
            let before = HeavyWork.skipped.withLockedValue { $0 }
            for _ in 0..<5 {
                let connection = try RawConnection(port: app.port)
                connection.send(request)
                try await Task.sleep(for: .milliseconds(20))
                connection.close()
            }
            try await release.value
            // The pool works through its queue: the five abandoned fetches are skipped, not evaluated.
            let connection = try RawConnection(port: app.port)
            connection.send(request)
            #expect(try await connection.response()?.status == 200)
            let skipped = HeavyWork.skipped.withLockedValue { $0 } - before
            #expect(skipped >= 5, "only \(skipped) of 5 abandoned heavy fetches were skipped")
        }
    }
}
