import Foundation
import Testing

@testable import RemoteConfigClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Each failure an app reacts to differently is its own case, with the `URLError` code kept.
@Suite struct ErrorTests {
    struct CustomFailure: Error {}

    static let transportFailures: [(URLError.Code, RemoteConfigError)] = [
        (.notConnectedToInternet, .offline(.notConnectedToInternet)),
        (.dataNotAllowed, .offline(.dataNotAllowed)),
        (.networkConnectionLost, .connectionFailed(.networkConnectionLost)),
        (.timedOut, .timedOut),
        (.cannotConnectToHost, .connectionFailed(.cannotConnectToHost)),
        (.cannotFindHost, .connectionFailed(.cannotFindHost)),
        (.secureConnectionFailed, .connectionFailed(.secureConnectionFailed)),
    ]

    @Test(arguments: transportFailures)
    func networkFailuresKeepTheirCause(code: URLError.Code, expected: RemoteConfigError) async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueueFailure(URLError(code))
        await #expect(throws: expected) { try await config.fetch() }
        #expect(expected.urlErrorCode == code)
        #expect(config.lastFetchStatus == .failure)
    }

    @Test func answersKeepTheirCause() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        config.configSettings.minimumFetchInterval = 0
        harness.transport.enqueue(.status(401, message: "unknown key"), .status(403, message: "other project"))
        await #expect(throws: RemoteConfigError.keyRefused(statusCode: 401, message: "unknown key")) {
            try await config.fetch()
        }
        await #expect(throws: RemoteConfigError.keyRefused(statusCode: 403, message: "other project")) {
            try await config.fetch()
        }
        harness.transport.enqueue(.status(500, message: "boom"))
        await #expect(throws: RemoteConfigError.server(statusCode: 500, status: "UNAVAILABLE", message: "boom")) {
            try await config.fetch()
        }
        harness.transport.enqueue(.status(503, headers: ["Retry-After": "30"]))
        let until = harness.clock.now + 30
        await #expect(throws: RemoteConfigError.unavailable(statusCode: 503, retryAfter: 30, until: until)) {
            try await config.fetch()
        }
        await #expect(throws: RemoteConfigError.throttled(until: until), "the next call sends nothing") {
            try await config.fetch()
        }
        harness.clock.advance(30)
        harness.transport.enqueueFailure(CustomFailure())
        do {
            try await config.fetch()
            Issue.record("expected an error")
        } catch let error as RemoteConfigError {
            guard case .transport(let text) = error else { throw error }
            #expect(text.contains("CustomFailure"))
            #expect(error.urlErrorCode == nil)
        }
    }

    @Test func aRefusedConnectionThroughURLSession() async throws {
        let config = RemoteConfig(
            serverURL: URL(string: "http://127.0.0.1:1")!, project: "my-app", clientKey: "k",
            app: AppIdentity(appId: "a", platform: .ios, version: "1.0", build: "1"),
            storageDirectory: makeTemporaryDirectory())
        defer { try? FileManager.default.removeItem(at: config.storageDirectory) }
        await #expect(throws: RemoteConfigError.connectionFailed(.cannotConnectToHost)) { try await config.fetch() }
    }
}
