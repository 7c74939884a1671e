import Foundation
import NIOConcurrencyHelpers
import RemoteConfigTestSupport
import Testing

/// Client bodies just under the 1 MiB limit whose one string is 500,000 `\\` escapes, four at once, over
/// and over: they once took 5.5 s each to read on an event loop and stalled `/healthz` for 3 s and another
/// project's fetch for 6.5 s. Now they are read in linear time, and off the event loops.
@Suite struct EscapeBodyIsolationTests {
    static func request(_ path: String, key: String, body: String) -> String {
        "POST \(path) HTTP/1.1\r\nHost: t\r\nX-API-Key: \(key)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    @Test func fourEscapeBombsDoNotStallHealthOrAnotherProjectsFetch() async throws {
        try await TestApp.live { app in
            try await app.createProject("bomb-app")
            try await app.createProject("shop-app")
            for project in ["bomb-app", "shop-app"] {
                #expect(
                    try await app.publish(project, ["parameters": ["p": ["defaultValue": ["value": "1"]]]]).status
                        == 200)
            }
            let bombKey = try await app.createKey(role: "client", project: "bomb-app").secret
            let shopKey = try await app.createKey(role: "client", project: "shop-app").secret
            let escapes = String(repeating: #"\\"#, count: 500_000)
            let fetchBody = #"{"appInstanceId":"i","customSignals":{"x":"\#(escapes)"}}"#
            let ofrepBody = #"{"context":{"targetingKey":"i","x":"\#(escapes)"}}"#
            #expect(fetchBody.utf8.count < 1 << 20)
            let port = app.port

            // Two fetches and two OFREP evaluations of such bodies, each answered 400 (the value is too long)
            // once read, sent again as soon as answered, until the probes are done.
            let answered = NIOLockedValueBox(0)
            let busy = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for worker in 0..<4 {
                        group.addTask {
                            let connection = try RawConnection(port: port)
                            let request =
                                worker < 2
                                ? Self.request(
                                    "/v1/projects/bomb-app/remoteConfig:fetch", key: bombKey, body: fetchBody)
                                : Self.request("/ofrep/v1/evaluate/flags", key: bombKey, body: ofrepBody)
                            while !Task.isCancelled {
                                connection.send(request)
                                guard let reply = try await connection.response(timeout: .seconds(60)) else { break }
                                #expect(reply.status == 400)
                                answered.withLockedValue { $0 += 1 }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            try await Task.sleep(for: .milliseconds(500))

            let probe = try RawConnection(port: port)
            let shopFetch = Self.request(
                "/v1/projects/shop-app/remoteConfig:fetch", key: shopKey, body: #"{"appInstanceId":"probe"}"#)
            var durations: [Duration] = []
            for round in 0..<20 {
                for request in ["GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", shopFetch] {
                    let start = ContinuousClock.now
                    probe.send(request)
                    let reply = try await probe.response(timeout: .seconds(10))
                    #expect(reply?.status == 200, "probe \(round) failed")
                    durations.append(ContinuousClock.now - start)
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            busy.cancel()
            _ = try? await busy.value
            let bombs = answered.withLockedValue { $0 }
            // Other tests share the two cores, which can delay any one probe; bodies read on the event loops
            // would delay them all, by seconds. So: nine in ten within 300 ms, none over a second.
            let sorted = durations.sorted()
            let ninetieth = sorted[sorted.count * 9 / 10 - 1]
            #expect(ninetieth < .milliseconds(300), "9 in 10 of \(sorted.count) probes took up to \(ninetieth)")
            #expect(sorted.last! < .seconds(1), "the slowest of \(sorted.count) probes took \(sorted.last!)")
            #expect(bombs > 0, "no escape body was answered")
            print("escape bodies: \(bombs) answered, slowest probe \(sorted.last!), 90th percentile \(ninetieth)")
        }
    }
}
