import Foundation
import Testing

@testable import RemoteConfigClient

@Suite struct BackoffTests {
    @Test(arguments: [429, 503, 504])
    func retryAfterIsRespected(status: Int) async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        config.configSettings.minimumFetchInterval = 0
        harness.transport.enqueue(.status(status, headers: ["Retry-After": "120"]))
        let start = harness.clock.now
        let unavailable = RemoteConfigError.unavailable(
            statusCode: status, retryAfter: 120, until: start.addingTimeInterval(120))
        await #expect(throws: unavailable) { try await config.fetch() }
        #expect(config.lastFetchStatus == .throttled)

        harness.clock.advance(60)
        await #expect(throws: RemoteConfigError.throttled(until: start.addingTimeInterval(120))) {
            try await config.fetch()
        }
        #expect(harness.transport.fetchCount == 1, "no request during the backoff")

        harness.clock.advance(61)
        harness.transport.enqueue(.ok(["a": "1"]))
        #expect(try await config.fetchAndActivate() == .successFetchedFromRemote)
        #expect(harness.transport.fetchCount == 2)
        #expect(config.lastFetchStatus == .success)
    }

    @Test func exponentialBackoffWithoutRetryAfter() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        config.configSettings.minimumFetchInterval = 0
        harness.transport.enqueue(.status(503), .status(503), .ok(["a": "1"]), .status(429))
        var start = harness.clock.now
        await #expect(throws: RemoteConfigError.unavailable(statusCode: 503, retryAfter: nil, until: start + 60)) {
            try await config.fetch()
        }
        harness.clock.advance(60)
        start = harness.clock.now
        await #expect(throws: RemoteConfigError.unavailable(statusCode: 503, retryAfter: nil, until: start + 120)) {
            try await config.fetch()
        }
        harness.clock.advance(120)
        try await config.fetch()
        start = harness.clock.now
        await #expect(throws: RemoteConfigError.unavailable(statusCode: 429, retryAfter: nil, until: start + 60)) {
            try await config.fetch()
        }
        #expect(harness.transport.fetchCount == 4, "a success resets the backoff")
    }

    @Test func retryAfterAsHTTPDate() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let until = harness.clock.now.addingTimeInterval(300)
        harness.transport.enqueue(.status(503, headers: ["Retry-After": formatter.string(from: until)]))
        await #expect(throws: RemoteConfigError.unavailable(statusCode: 503, retryAfter: 300, until: until)) {
            try await config.fetch()
        }
    }

    @Test func backoffSurvivesRelaunch() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        harness.transport.enqueue(.status(429, headers: ["Retry-After": "600"]))
        await #expect(throws: RemoteConfigError.self) { try await harness.makeConfig().fetch() }

        let relaunched = harness.makeConfig()
        harness.clock.advance(10)
        await #expect(throws: RemoteConfigError.self) { try await relaunched.fetch() }
        #expect(harness.transport.fetchCount == 1)
    }

    @Test func serverErrorsOtherThan429And503DoNotBackOff() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueue(.status(500), .ok(["a": "1"]))
        await #expect(throws: RemoteConfigError.self) { try await config.fetch() }
        try await config.fetch()
        #expect(harness.transport.fetchCount == 2)
    }
}
