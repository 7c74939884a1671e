import Foundation
import Testing

@testable import RemoteConfigClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The realtime stream through outages: errors reach the listener, waits stay short, the foreground reconnects.
@Suite struct RealtimeRecoveryTests {
    @Test func connectionErrorsAreReportedAndTheStreamKeepsTrying() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueueStreamFailure(URLError(.cannotConnectToHost))
        let inbox = ListenerInbox()
        let registration = config.addOnConfigUpdateListener(remoteConfigUpdateCompletion: inbox.listener)
        #expect(try await inbox.next() == .failure(.connectionFailed(.cannotConnectToHost)))

        let connection = try await harness.transport.nextConnection()
        harness.transport.enqueueStreamStatus(503)  // the reconnect that follows
        connection.continuation.finish(throwing: URLError(.networkConnectionLost))
        #expect(try await inbox.next() == .failure(.connectionFailed(.networkConnectionLost)))

        _ = try await harness.transport.nextConnection()  // the 503
        guard case .failure(.unavailable(statusCode: 503, retryAfter: nil, _)) = try await inbox.next() else {
            Issue.record("a 503 is reported as unavailable")
            return
        }
        let reopened = try await harness.transport.nextConnection()
        harness.transport.enqueue(.ok(["a": "1"], version: "1"))
        reopened.send(versionEvent(1))
        #expect(try await inbox.next() == .success(["a"]), "still listening after three failures")
        #expect(config.isListeningForUpdates)
        registration.remove()
    }

    @Test func theUpdateSequenceOutlivesAConnectionError() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueueStreamFailure(URLError(.notConnectedToInternet))
        let updates = config.configUpdates()
        let connection = try await harness.transport.nextConnection()
        harness.transport.enqueue(.ok(["k": "v"], version: "1"))
        connection.send(versionEvent(1))
        let update = try await withTimeout {
            var iterator = updates.makeAsyncIterator()
            return try await iterator.next()
        }
        #expect(update?.updatedKeys == ["k"])
    }

    @Test func reconnectDelayIsCapped() {
        for failures in 0...40 {
            let delay = RemoteConfig.reconnectDelay(failures: failures, serverRetry: nil)
            #expect(delay <= 6, "failure \(failures): \(delay) s")
        }
        #expect((1.0...1.2).contains(RemoteConfig.reconnectDelay(failures: 0, serverRetry: nil)))
        #expect((2.0...2.4).contains(RemoteConfig.reconnectDelay(failures: 1, serverRetry: nil)))
        #expect((5.0...6.0).contains(RemoteConfig.reconnectDelay(failures: 3, serverRetry: nil)))
        #expect(
            (30.0...36.0).contains(RemoteConfig.reconnectDelay(failures: 5, serverRetry: 30)),
            "a longer retry: from the server is honoured")
    }

    @Test func reconnectRealtimeOpensANewConnectionAtOnce() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        config.reconnectRealtime()
        #expect(!config.isListeningForUpdates, "no listener, no stream")

        let inbox = ListenerInbox()
        let registration = config.addOnConfigUpdateListener(remoteConfigUpdateCompletion: inbox.listener)
        let first = try await harness.transport.nextConnection()
        harness.transport.enqueue(.ok(["a": "1"], version: "3"))
        first.send(versionEvent(3))
        #expect(try await inbox.next() == .success(["a"]))

        // Back from the background: the old connection may be silently dead.
        config.reconnectRealtime()
        let second = try await harness.transport.nextConnection()
        #expect(second.request.value(forHTTPHeaderField: "Last-Event-ID") == "3")
        let closed: Void? = try await withTimeout {
            var iterator = first.terminated.makeAsyncIterator()
            return await iterator.next()
        }
        #expect(closed != nil, "the old connection is closed")
        #expect(harness.sleeper.recorded.isEmpty, "no reconnect wait")
        #expect(config.isListeningForUpdates)

        harness.transport.enqueue(.ok(["a": "2"], version: "4", etag: "\"e4\""))
        second.send(versionEvent(4))
        #expect(try await inbox.next() == .success(["a"]))
        registration.remove()
        #expect(!config.isListeningForUpdates)
    }
}
