import Foundation
import Testing

@testable import RemoteConfigClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A canned HTTP answer.
struct StubResponse: Sendable {
    var status: Int
    var body: Data
    var headers: [String: String]
    /// When set, the answer waits until this stream yields (see `FakeTransport.enqueueHeld`).
    var gate: AsyncStream<Void>? = nil

    static func ok(_ entries: [String: String], version: String = "1", etag: String = "\"e1\"") -> StubResponse {
        let object: [String: Any] = ["entries": entries, "state": "UPDATE", "templateVersion": version]
        let body = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return StubResponse(status: 200, body: body, headers: ["ETag": etag, "Content-Type": "application/json"])
    }

    static func notModified(etag: String = "\"e1\"") -> StubResponse {
        StubResponse(status: 304, body: Data(), headers: ["ETag": etag])
    }

    static func status(_ status: Int, headers: [String: String] = [:], message: String = "nope") -> StubResponse {
        let body = #"{"error":{"code":\#(status),"status":"UNAVAILABLE","message":"\#(message)","details":[]}}"#
        return StubResponse(status: status, body: Data(body.utf8), headers: headers)
    }
}

/// One open stream of the fake transport; the test pushes chunks into it.
struct FakeStreamConnection: Sendable {
    let request: URLRequest
    let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    let terminated: AsyncStream<Void>

    func send(_ text: String) { continuation.yield(Data(text.utf8)) }
    func close() { continuation.finish() }
}

/// An `HTTPTransport` that answers fetches from a script and hands streams to the test.
final class FakeTransport: HTTPTransport {
    enum Failure: Error { case unscripted }

    private struct State {
        var responses: [Result<StubResponse, any Error>] = []
        var requests: [URLRequest] = []
        var streamStatuses: [Int] = []
        var streamFailures: [any Error] = []
    }

    private let state = Locked(State())
    private let connections: AsyncStream<FakeStreamConnection>
    private let connectionSink: AsyncStream<FakeStreamConnection>.Continuation
    private let fetchRequests: AsyncStream<URLRequest>
    private let fetchRequestSink: AsyncStream<URLRequest>.Continuation

    init() {
        (connections, connectionSink) = AsyncStream.makeStream()
        (fetchRequests, fetchRequestSink) = AsyncStream.makeStream()
    }

    func enqueue(_ responses: StubResponse...) {
        state.withLock { $0.responses += responses.map { .success($0) } }
    }

    /// Enqueues an answer that is sent only when the returned closure is called.
    func enqueueHeld(_ response: StubResponse) -> @Sendable () -> Void {
        var held = response
        let (gate, release) = AsyncStream<Void>.makeStream()
        held.gate = gate
        enqueue(held)
        return {
            release.yield()
            release.finish()
        }
    }

    /// The next fetch fails as URLSession fails without network.
    func enqueueOffline() {
        enqueueFailure(URLError(.notConnectedToInternet))
    }

    /// The next fetch fails with `error` before any answer.
    func enqueueFailure(_ error: any Error) {
        state.withLock { $0.responses.append(.failure(error)) }
    }

    /// The next stream request fails before any answer (a refused connection, no network).
    func enqueueStreamFailure(_ error: any Error) {
        state.withLock { $0.streamFailures.append(error) }
    }

    func enqueueStreamStatus(_ status: Int) {
        state.withLock { $0.streamStatuses.append(status) }
    }

    var requests: [URLRequest] { state.withLock { $0.requests } }
    var fetchCount: Int { requests.count }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let next: Result<StubResponse, any Error> = state.withLock { state in
            state.requests.append(request)
            return state.responses.isEmpty ? .failure(Failure.unscripted) : state.responses.removeFirst()
        }
        fetchRequestSink.yield(request)
        let stub = try next.get()
        if let gate = stub.gate {
            for await _ in gate { break }
        }
        let response = HTTPURLResponse(
            url: request.url!, statusCode: stub.status, httpVersion: "HTTP/1.1", headerFields: stub.headers)!
        return (stub.body, response)
    }

    func stream(_ request: URLRequest) async throws -> (HTTPURLResponse, AsyncThrowingStream<Data, any Error>) {
        if let failure = state.withLock({ $0.streamFailures.isEmpty ? nil : $0.streamFailures.removeFirst() }) {
            throw failure
        }
        let status = state.withLock { $0.streamStatuses.isEmpty ? 200 : $0.streamStatuses.removeFirst() }
        let (chunks, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let (terminated, terminatedSink) = AsyncStream<Void>.makeStream()
        continuation.onTermination = { _ in
            terminatedSink.yield()
            terminatedSink.finish()
        }
        connectionSink.yield(FakeStreamConnection(request: request, continuation: continuation, terminated: terminated))
        let response = HTTPURLResponse(
            url: request.url!, statusCode: status, httpVersion: "HTTP/1.1",
            headerFields: ["Content-Type": "text/event-stream"])!
        return (response, chunks)
    }

    /// Waits for the SDK to open the next stream.
    func nextConnection() async throws -> FakeStreamConnection {
        try await withTimeout { [connections] in
            var iterator = connections.makeAsyncIterator()
            guard let next = await iterator.next() else { throw Failure.unscripted }
            return next
        }
    }

    /// Waits for the SDK to send the next fetch request.
    func nextFetchRequest() async throws -> URLRequest {
        try await withTimeout { [fetchRequests] in
            var iterator = fetchRequests.makeAsyncIterator()
            guard let next = await iterator.next() else { throw Failure.unscripted }
            return next
        }
    }
}

/// Thrown when an awaited event does not happen in time.
struct TimedOut: Error {}

/// Runs `body`, failing after `seconds`.
func withTimeout<T: Sendable>(
    seconds: Double = 5, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            throw TimedOut()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let current = Locked(Date(timeIntervalSince1970: 1_800_000_000))

    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

/// Records the SDK's sleeps and returns at once.
final class SleepRecorder: Sendable {
    private let delays = Locked<[TimeInterval]>([])

    var recorded: [TimeInterval] { delays.withLock { $0 } }
    func sleep(_ seconds: TimeInterval) async throws {
        delays.withLock { $0.append(seconds) }
        try Task.checkCancellation()
        await Task.yield()
    }
}

/// A fresh directory under the temporary directory.
func makeTemporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("rc-client-tests-\(UUID().uuidString)", isDirectory: true)
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Everything a test needs: a `RemoteConfig` on a fake transport, a fake clock and a temporary directory.
struct Harness {
    let transport = FakeTransport()
    let clock = TestClock()
    let sleeper = SleepRecorder()
    let directory: URL
    let app: AppIdentity

    init(
        directory: URL = makeTemporaryDirectory(),
        app: AppIdentity = AppIdentity(appId: "com.example.shop", platform: .ios, version: "2.1.0", build: "210")
    ) {
        self.directory = directory
        self.app = app
    }

    /// A new `RemoteConfig` on this harness's directory (call again to simulate a relaunch).
    func makeConfig(transport: FakeTransport? = nil, app: AppIdentity? = nil) -> RemoteConfig {
        let clock = self.clock
        let sleeper = self.sleeper
        return RemoteConfig(
            serverURL: URL(string: "https://config.example.com/")!,
            project: "my-app",
            clientKey: "client-key-1",
            app: app ?? self.app,
            storageDirectory: directory,
            device: DeviceContext(countryCode: "JP", languageCode: "ja-JP", timeZone: "Asia/Tokyo"),
            transport: transport ?? self.transport,
            now: { clock.now },
            sleep: { try await sleeper.sleep($0) }
        )
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The JSON body of a request as a dictionary.
func jsonBody(of request: URLRequest) -> [String: Any] {
    guard let body = request.httpBody,
        let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
    else { return [:] }
    return object
}
