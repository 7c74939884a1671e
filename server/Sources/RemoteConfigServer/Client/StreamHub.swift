import NIOConcurrencyHelpers
import ServiceLifecycle

/// The realtime subscribers of this server, by project: publishes fan out to them, a ticker sends
/// keep-alives, revoking a key closes its streams.
///
/// Each subscriber has a small bounded queue; a subscriber that does not keep up (a stalled reader)
/// is closed rather than buffered without end, and catches up when it reconnects with `Last-Event-ID`.
public final class StreamHub: Sendable {
    /// What a stream writes next.
    public enum Event: Sendable, Equatable {
        case version(Int64)
        case keepAlive
    }

    struct Subscriber {
        let keyId: String
        let continuation: AsyncStream<Event>.Continuation
        /// Aborts the subscriber's connection: its pending writes fail, so a writer blocked on a full
        /// socket is released too.
        let abort: @Sendable () -> Void
    }

    private struct State {
        var byProject: [String: [UInt64: Subscriber]] = [:]
        var count = 0
        var nextID: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())
    /// Streams held at most; `subscribe` refuses more.
    let maxStreams: Int
    /// How many events may wait for one subscriber before it is dropped.
    let queueLimit: Int
    /// How often a comment line keeps idle streams (and the proxies in front of them) open.
    let keepAliveInterval: Duration

    public init(queueLimit: Int = 8, keepAliveInterval: Duration = .seconds(15), maxStreams: Int = .max) {
        self.queueLimit = queueLimit
        self.keepAliveInterval = keepAliveInterval
        self.maxStreams = maxStreams
    }

    /// Adds a subscriber; the stream ends when it is dropped, its key revoked or the server stops.
    /// `abort` closes its connection when it is dropped (it stalled, or its client left). nil when the
    /// server already holds `maxStreams` streams.
    func subscribe(
        project: String, keyId: String, abort: @escaping @Sendable () -> Void = {}
    ) -> (id: UInt64, events: AsyncStream<Event>)? {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingOldest(queueLimit))
        let subscriber = Subscriber(keyId: keyId, continuation: continuation, abort: abort)
        let id = state.withLockedValue { state -> UInt64? in
            guard state.count < maxStreams else { return nil }
            state.nextID += 1
            state.byProject[project, default: [:]][state.nextID] = subscriber
            state.count += 1
            return state.nextID
        }
        guard let id else { return nil }
        continuation.onTermination = { [weak self] _ in self?.remove(project: project, id: id) }
        return (id, stream)
    }

    /// Ends subscriber `id` of `project` and aborts its connection: its client left or stopped reading.
    func drop(project: String, id: UInt64) {
        guard let subscriber = state.withLockedValue({ $0.byProject[project]?[id] }) else { return }
        drop(subscriber)
    }

    private func drop(_ subscriber: Subscriber) {
        subscriber.continuation.finish()
        subscriber.abort()
    }

    private func remove(project: String, id: UInt64) {
        state.withLockedValue { state in
            guard state.byProject[project]?.removeValue(forKey: id) != nil else { return }
            state.count -= 1
            if state.byProject[project]?.isEmpty == true { state.byProject[project] = nil }
        }
    }

    /// Tells every subscriber of `project` about `version`.
    public func publish(project: String, version: Int64) {
        let targets = state.withLockedValue { Array(($0.byProject[project] ?? [:]).values) }
        for subscriber in targets { send(.version(version), to: subscriber) }
    }

    /// Closes every stream opened with key `keyId`.
    public func closeStreams(ofKey keyId: String) {
        let targets = state.withLockedValue { state in
            state.byProject.values.flatMap { $0.values.filter { $0.keyId == keyId } }
        }
        for subscriber in targets { subscriber.continuation.finish() }
    }

    /// Closes every stream (shutdown).
    public func closeAll() {
        let targets = state.withLockedValue { $0.byProject.values.flatMap(\.values) }
        for subscriber in targets { subscriber.continuation.finish() }
    }

    /// How many streams are open.
    public var count: Int {
        state.withLockedValue { $0.count }
    }

    private func send(_ event: Event, to subscriber: Subscriber) {
        if case .dropped = subscriber.continuation.yield(event) {
            // Its queue is full: its writes are blocked on a full socket because the client does not read.
            // Drop it rather than buffer without end; it catches up when it reconnects with Last-Event-ID.
            drop(subscriber)
        }
    }

    /// Sends a keep-alive to every stream.
    func keepAlive() {
        let targets = state.withLockedValue { $0.byProject.values.flatMap(\.values) }
        for subscriber in targets { send(.keepAlive, to: subscriber) }
    }
}

/// Runs the hub's keep-alive ticker for as long as the server runs.
struct StreamHubService: Service {
    let hub: StreamHub

    func run() async throws {
        // Ends quietly at shutdown: the cancellation is how it is asked to stop, not an error.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: hub.keepAliveInterval)
                hub.keepAlive()
            }
        }
    }
}
