import Foundation
import Testing

@testable import RemoteConfigClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server that accepts and never answers must not hold an app (on its splash screen) for long: the fetch fails with
/// `.timedOut` after `fetchTimeout`, and the app keeps showing its defaults and last activated values.
@Suite struct FetchTimeoutTests {
    @Test func theDefaultTimeoutIsShortEnoughForALaunch() {
        let settings = RemoteConfigSettings()
        #expect(settings.fetchTimeout == 10)
        #expect(settings.minimumFetchInterval == 12 * 60 * 60)
    }

    /// docs/sdk.md's launch pattern against a real socket: activate what the last run fetched, at once, then fetch
    /// for the next launch from a server that accepts the connection and never sends a byte.
    @Test func aServerThatNeverAnswersFailsTheFetchAfterTheTimeoutAndKeepsTheValues() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        // The previous run: values activated, then newer ones fetched and left for the next launch.
        let previous = harness.makeConfig()
        harness.transport.enqueue(.ok(["welcome": "remote v1"], version: "1", etag: "\"e1\""))
        try await previous.fetchAndActivate()
        harness.transport.enqueue(.ok(["welcome": "remote v2"], version: "2", etag: "\"e2\""))
        try await previous.fetch(withExpirationDuration: 0)

        let server = try SilentServer()
        defer { server.stop() }
        let settings = RemoteConfigSettings(minimumFetchInterval: 0, fetchTimeout: 1)
        let config = RemoteConfig(
            serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, project: "my-app", clientKey: "client-key-1",
            app: harness.app, storageDirectory: harness.directory, settings: settings)
        config.setDefaults(["welcome": "default", "only_in_app": "in-app default"])

        // Launch: nothing waits for the network.
        #expect(try await config.activate())
        #expect(config["welcome"].stringValue == "remote v2")
        #expect(config["only_in_app"].stringValue == "in-app default")

        let start = Date()
        await #expect(throws: RemoteConfigError.timedOut) { try await config.fetch() }
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= 0.9, "gave up before the timeout: \(elapsed) s")
        // Far below the 60 s an app was held before; room for a loaded machine.
        #expect(elapsed < 8, "took \(elapsed) s for a 1 s timeout")
        #expect(server.acceptedConnections >= 1, "the server should have accepted the connection")

        #expect(config["welcome"].stringValue == "remote v2")
        #expect(config["welcome"].source == .remote)
        #expect(config["only_in_app"].source == .default)
        #expect(config.lastFetchStatus == .failure)
        #expect(RemoteConfigError.timedOut.urlErrorCode == .timedOut)
    }

    /// The deadline is the SDK's own, not only `URLRequest.timeoutInterval` (which bounds silence between packets,
    /// and which a custom transport may ignore): a transport that never returns and ignores cancellation still
    /// ends the fetch on time.
    @Test func aTransportThatNeverReturnsIsAbandonedAtTheTimeout() async throws {
        let transport = HangingTransport()
        defer { transport.release() }
        // Without the SDK's deadline the fetch would wait for this: a regression fails the test instead of hanging it.
        Task {
            try await Task.sleep(nanoseconds: 10_000_000_000)
            transport.release()
        }
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = RemoteConfig(
            serverURL: URL(string: "https://config.example.com")!, project: "my-app", clientKey: "client-key-1",
            app: harness.app, storageDirectory: harness.directory,
            settings: RemoteConfigSettings(minimumFetchInterval: 0, fetchTimeout: 0.5), transport: transport)
        config.setDefaults(["welcome": "default"])

        let start = Date()
        await #expect(throws: RemoteConfigError.timedOut) { try await config.fetchAndActivate() }
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= 0.4 && elapsed < 5, "took \(elapsed) s for a 0.5 s timeout")
        #expect(transport.requests.first?.timeoutInterval == 0.5)
        #expect(config["welcome"].stringValue == "default")
        #expect(config["welcome"].source == .default)

        // The abandoned request no longer holds the instance: the next fetch is a new request.
        transport.release()
        await #expect(throws: RemoteConfigError.self) { try await config.fetch() }
        #expect(transport.requests.count == 2)
    }

    @Test func anAnswerBeforeTheDeadlineIsKept() async throws {
        let answer = try await withDeadline(seconds: 5) { 42 }
        #expect(answer == 42)
        await #expect(throws: URLError.self) {
            try await withDeadline(seconds: 0.05) { () async throws -> Int in
                try await Task.sleep(nanoseconds: 5_000_000_000)
                return 1
            }
        }
    }
}

/// A transport whose fetches never answer and ignore cancellation, until `release()`; then they fail.
final class HangingTransport: HTTPTransport {
    private let state = Locked<(released: Bool, requests: [URLRequest])>((false, []))

    var requests: [URLRequest] { state.withLock { $0.requests } }
    func release() { state.withLock { $0.released = true } }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        state.withLock { $0.requests.append(request) }
        // Deliberately deaf to cancellation: `try?` swallows it and the loop goes on.
        while !state.withLock({ $0.released }) {
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        throw URLError(.cannotConnectToHost)
    }

    func stream(_ request: URLRequest) async throws -> (HTTPURLResponse, AsyncThrowingStream<Data, any Error>) {
        throw URLError(.cannotConnectToHost)
    }
}
