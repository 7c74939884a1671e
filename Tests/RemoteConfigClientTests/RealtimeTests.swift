import Foundation
import Testing

@testable import RemoteConfigClient

/// Collects what listeners receive.
final class ListenerInbox: Sendable {
    private let (stream, continuation) = AsyncStream<Result<Set<String>, RemoteConfigError>>.makeStream()

    var listener: ConfigUpdateListener {
        { [continuation] update, error in
            if let update { continuation.yield(.success(update.updatedKeys)) }
            if let error { continuation.yield(.failure(error as? RemoteConfigError ?? .transport("\(error)"))) }
        }
    }

    func next() async throws -> Result<Set<String>, RemoteConfigError>? {
        try await withTimeout { [stream] in
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
    }
}

func versionEvent(_ version: Int) -> String {
    "event: version\nid: \(version)\ndata: {\"latestTemplateVersionNumber\": \"\(version)\"}\n\n"
}

@Suite struct RealtimeTests {
    @Test func newerVersionFetchesAndReportsUpdatedKeys() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueue(.ok(["same": "s", "changed": "old", "removed": "r"], version: "1"))
        try await config.fetchAndActivate()

        let inbox = ListenerInbox()
        let registration = config.addOnConfigUpdateListener(remoteConfigUpdateCompletion: inbox.listener)
        let connection = try await harness.transport.nextConnection()
        #expect(connection.request.httpMethod == "GET")
        #expect(
            connection.request.url?.absoluteString
                == "https://config.example.com/v1/projects/my-app/remoteConfig:stream")
        #expect(connection.request.value(forHTTPHeaderField: "X-API-Key") == "client-key-1")
        #expect(connection.request.value(forHTTPHeaderField: "Accept") == "text/event-stream")
        #expect(connection.request.value(forHTTPHeaderField: "Last-Event-ID") == "1")

        harness.transport.enqueue(.ok(["same": "s", "changed": "new", "added": "a"], version: "2", etag: "\"e2\""))
        connection.send(versionEvent(2))
        let received = try await inbox.next()
        #expect(received == .success(["changed", "added", "removed"]))
        #expect(harness.transport.fetchCount == 2, "the realtime fetch bypasses the 12-hour throttle")
        #expect(config["changed"].stringValue == "old", "listeners decide when to activate")
        #expect(try await config.activate())
        #expect(config["changed"].stringValue == "new")
        registration.remove()
    }

    @Test func olderOrEqualVersionsDoNotFetch() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueue(.ok(["a": "1"], version: "5"))
        try await config.fetchAndActivate()
        let inbox = ListenerInbox()
        let registration = config.addOnConfigUpdateListener(remoteConfigUpdateCompletion: inbox.listener)
        let connection = try await harness.transport.nextConnection()
        connection.send(versionEvent(4) + versionEvent(5) + ": ping\n\n" + "event: other\ndata: {}\n\n")

        harness.transport.enqueue(.ok(["a": "2"], version: "6", etag: "\"e6\""))
        connection.send(versionEvent(6))
        #expect(try await inbox.next() == .success(["a"]))
        #expect(harness.transport.fetchCount == 2, "only version 6 caused a fetch")
        registration.remove()
    }

    @Test func unchangedAnswerReportsNothing() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueue(.ok(["a": "1"], version: "1"))
        try await config.fetchAndActivate()
        let inbox = ListenerInbox()
        let registration = config.addOnConfigUpdateListener(remoteConfigUpdateCompletion: inbox.listener)
        let connection = try await harness.transport.nextConnection()

        // Version 2 does not change this caller's answer (304); version 3 does.
        harness.transport.enqueue(.notModified(), .ok(["a": "3"], version: "3", etag: "\"e3\""))
        connection.send(versionEvent(2))
        _ = try await harness.transport.nextFetchRequest()
        connection.send(versionEvent(3))
        #expect(try await inbox.next() == .success(["a"]))
        #expect(harness.transport.fetchCount == 3)
        registration.remove()
    }

    @Test func announcementDuringAFetchSendsAFreshRequest() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        let inbox = ListenerInbox()
        let registration = config.addOnConfigUpdateListener(remoteConfigUpdateCompletion: inbox.listener)
        let connection = try await harness.transport.nextConnection()

        // A launch fetch is under way when version 2 is published; its answer may predate the publish.
        let release = harness.transport.enqueueHeld(.ok(["a": "old"], version: "1"))
        let launchFetch = Task { try await config.fetch() }
        _ = try await harness.transport.nextFetchRequest()
        harness.transport.enqueue(.ok(["a": "new"], version: "2", etag: "\"e2\""))
        connection.send(versionEvent(2))
        try await Task.sleep(nanoseconds: 50_000_000)
        release()
        #expect(try await launchFetch.value == .success)
        #expect(try await inbox.next() == .success(["a"]))
        #expect(harness.transport.fetchCount == 2)
        #expect(
            harness.transport.requests[1].value(forHTTPHeaderField: "If-None-Match") == "\"e1\"",
            "the second request was sent after the first answer arrived")
        #expect(try await config.activate())
        #expect(config["a"].stringValue == "new")
        registration.remove()
    }

    @Test func reconnectsWithBackoffAndLastEventID() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        let inbox = ListenerInbox()
        let registration = config.addOnConfigUpdateListener(remoteConfigUpdateCompletion: inbox.listener)
        let first = try await harness.transport.nextConnection()
        #expect(first.request.value(forHTTPHeaderField: "Last-Event-ID") == nil)

        harness.transport.enqueue(.ok(["a": "1"], version: "4"))
        first.send("retry: 3000\n\n" + versionEvent(4))
        #expect(try await inbox.next() == .success(["a"]))
        first.close()

        let second = try await harness.transport.nextConnection()
        #expect(second.request.value(forHTTPHeaderField: "Last-Event-ID") == "4")
        let delays = harness.sleeper.recorded
        #expect(delays.count == 1)
        #expect((3.0...3.6).contains(delays[0]), "waits the server's retry (plus jitter): \(delays)")

        second.continuation.finish(throwing: URLError(.networkConnectionLost))
        let third = try await harness.transport.nextConnection()
        #expect(third.request.value(forHTTPHeaderField: "Last-Event-ID") == "4")
        #expect((5.0...6.0).contains(harness.sleeper.recorded[1]), "capped at 5 s (plus jitter)")
        registration.remove()
    }

    @Test func removingTheLastListenerClosesTheStream() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        let first = config.addOnConfigUpdateListener { _, _ in }
        let second = config.addOnConfigUpdateListener { _, _ in }
        let connection = try await harness.transport.nextConnection()
        #expect(config.isListeningForUpdates)

        first.remove()
        first.remove()
        #expect(config.isListeningForUpdates, "one listener is left")
        second.remove()
        #expect(!config.isListeningForUpdates)
        let closed: Void? = try await withTimeout {
            var iterator = connection.terminated.makeAsyncIterator()
            return await iterator.next()
        }
        #expect(closed != nil)

        _ = config.addOnConfigUpdateListener { _, _ in }
        let reopened = try await harness.transport.nextConnection()
        #expect(reopened.request.url?.absoluteString.hasSuffix("remoteConfig:stream") == true)
    }

    @Test func refusedKeyIsReportedAndStopsTheStream() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueueStreamStatus(401)
        let inbox = ListenerInbox()
        let registration = config.addOnConfigUpdateListener(remoteConfigUpdateCompletion: inbox.listener)
        #expect(try await inbox.next() == .failure(.keyRefused(statusCode: 401, message: nil)))
        #expect(!config.isListeningForUpdates)
        registration.remove()
    }

    @Test func configUpdatesSequence() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
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

    @Test func changedKeysDiff() {
        #expect(
            RemoteConfig.changedKeys(from: ["a": "1", "b": "2"], to: ["a": "1", "b": "3", "c": "4"]) == ["b", "c"])
        #expect(RemoteConfig.changedKeys(from: ["a": "1"], to: [:]) == ["a"])
        #expect(RemoteConfig.changedKeys(from: ["a": "1"], to: ["a": "1"]).isEmpty)
    }
}
