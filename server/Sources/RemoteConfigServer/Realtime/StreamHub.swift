import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// The realtime subscribers of this server, by project: publishes fan out to them, a ticker sends
/// keep-alives, revoking a key closes its streams.
///
/// Most streams are served on their connection's event loop by `StreamFront`, grouped by loop in
/// `LoopStreams`: a publish encodes its event once and makes one hop to each loop, which writes the same
/// bytes to each of its streams. Streams the router serves (one after another kind of request on its
/// connection, say) are tasks fed through a small bounded queue each. Either way, a subscriber that does not keep up (a stalled reader) is
/// closed rather than buffered without end, and catches up when it reconnects with `Last-Event-ID`.
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
        /// Streams served on event loops, one registry per loop.
        var loops: [ObjectIdentifier: LoopStreams] = [:]
        var count = 0
        /// Streams held by each client key.
        var byKey: [String: Int] = [:]
        var nextID: UInt64 = 0

        /// Takes a slot for a stream of `keyId`, or says why there is none.
        mutating func admit(keyId: String, maxStreams: Int, maxPerKey: Int) -> Refusal? {
            guard count < maxStreams else { return .serverFull }
            let held = byKey[keyId, default: 0]
            guard held < maxPerKey else { return .keyFull }
            count += 1
            byKey[keyId] = held + 1
            return nil
        }

        /// Gives back a slot of `keyId`.
        mutating func release(keyId: String) {
            count -= 1
            let held = byKey[keyId, default: 1] - 1
            byKey[keyId] = held > 0 ? held : nil
        }
    }

    /// Why a stream was refused a slot.
    enum Refusal: Error, Sendable {
        /// The server holds `maxStreams` streams.
        case serverFull
        /// The stream's client key holds `maxStreamsPerKey` streams.
        case keyFull
    }

    private let state = NIOLockedValueBox(State())
    /// Streams held at most; `subscribe` refuses more.
    let maxStreams: Int
    /// Streams one client key holds at most, so that one project's apps cannot take every slot.
    public let maxStreamsPerKey: Int
    /// How many events may wait for one subscriber before it is dropped.
    let queueLimit: Int
    /// How often a comment line keeps idle streams (and the proxies in front of them) open.
    let keepAliveInterval: Duration

    /// `maxStreamsPerKey` defaults to 90% of `maxStreams` (at least one).
    public init(
        queueLimit: Int = 8, keepAliveInterval: Duration = .seconds(15), maxStreams: Int = .max,
        maxStreamsPerKey: Int? = nil
    ) {
        self.queueLimit = queueLimit
        self.keepAliveInterval = keepAliveInterval
        self.maxStreams = maxStreams
        self.maxStreamsPerKey = maxStreamsPerKey ?? Self.defaultMaxStreamsPerKey(maxStreams: maxStreams)
    }

    /// 90% of `maxStreams`, at least one.
    public static func defaultMaxStreamsPerKey(maxStreams: Int) -> Int {
        max(1, maxStreams - maxStreams / 10)
    }

    /// The 503 a refused stream request answers, with `Retry-After`.
    func error(_ refusal: Refusal) -> APIError {
        switch refusal {
        case .serverFull:
            APIError(
                .serviceUnavailable, "this server holds its maximum of \(maxStreams) streams; retry later",
                headers: [.retryAfter: "10"])
        case .keyFull:
            APIError(
                .serviceUnavailable,
                "this client key holds its maximum of \(maxStreamsPerKey) streams on this server; retry later",
                headers: [.retryAfter: "10"])
        }
    }

    /// Adds a subscriber; the stream ends when it is dropped, its key revoked or the server stops.
    /// `abort` closes its connection when it is dropped (it stalled, or its client left). Refused when the
    /// server already holds `maxStreams` streams, or the key `maxStreamsPerKey`.
    func subscribe(
        project: String, keyId: String, abort: @escaping @Sendable () -> Void = {}
    ) -> Result<(id: UInt64, events: AsyncStream<Event>), Refusal> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingOldest(queueLimit))
        let subscriber = Subscriber(keyId: keyId, continuation: continuation, abort: abort)
        let admitted = state.withLockedValue { state -> Result<UInt64, Refusal> in
            if let refusal = state.admit(keyId: keyId, maxStreams: maxStreams, maxPerKey: maxStreamsPerKey) {
                return .failure(refusal)
            }
            state.nextID += 1
            state.byProject[project, default: [:]][state.nextID] = subscriber
            return .success(state.nextID)
        }
        return admitted.map { id in
            continuation.onTermination = { [weak self] _ in self?.remove(project: project, id: id) }
            return (id, stream)
        }
    }

    /// Takes a slot for a stream of `keyId` served on `eventLoop` (called there) and returns that loop's
    /// registry, where the caller adds it; refused as `subscribe` refuses.
    func reserve(on eventLoop: any EventLoop, keyId: String) -> Result<LoopStreams, Refusal> {
        state.withLockedValue { state -> Result<LoopStreams, Refusal> in
            if let refusal = state.admit(keyId: keyId, maxStreams: maxStreams, maxPerKey: maxStreamsPerKey) {
                return .failure(refusal)
            }
            let id = ObjectIdentifier(eventLoop)
            if let streams = state.loops[id] { return .success(streams) }
            let streams = LoopStreams(eventLoop: eventLoop)
            state.loops[id] = streams
            return .success(streams)
        }
    }

    /// Gives back a slot taken with `reserve(on:keyId:)`.
    func release(keyId: String) {
        state.withLockedValue { $0.release(keyId: keyId) }
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
            guard let subscriber = state.byProject[project]?.removeValue(forKey: id) else { return }
            state.release(keyId: subscriber.keyId)
            if state.byProject[project]?.isEmpty == true { state.byProject[project] = nil }
        }
    }

    /// Tells every subscriber of `project` about `version`.
    public func publish(project: String, version: Int64) {
        let (targets, loops) = state.withLockedValue { (Array(($0.byProject[project] ?? [:]).values), $0.loops) }
        if !loops.isEmpty {
            let bytes = StreamEventBytes(version: version)
            for streams in loops.values {
                streams.eventLoop.execute { streams.publish(project: project, version: version, bytes: bytes) }
            }
        }
        for subscriber in targets { send(.version(version), to: subscriber) }
    }

    /// Closes every stream opened with key `keyId`.
    public func closeStreams(ofKey keyId: String) {
        let (targets, loops) = state.withLockedValue { state in
            (state.byProject.values.flatMap { $0.values.filter { $0.keyId == keyId } }, state.loops)
        }
        for streams in loops.values { streams.eventLoop.execute { streams.end(keyId: keyId) } }
        for subscriber in targets { subscriber.continuation.finish() }
    }

    /// Closes every stream (shutdown).
    public func closeAll() {
        let (targets, loops) = state.withLockedValue { ($0.byProject.values.flatMap(\.values), $0.loops) }
        for streams in loops.values { streams.eventLoop.execute { streams.end(keyId: nil) } }
        for subscriber in targets { subscriber.continuation.finish() }
    }

    /// How many streams are open.
    public var count: Int {
        state.withLockedValue { $0.count }
    }

    /// How many of them are served on their event loops by `StreamFront` (the others by the router).
    var servedOnLoops: Int {
        state.withLockedValue { state in state.count - state.byProject.values.reduce(0) { $0 + $1.count } }
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
        let (targets, loops) = state.withLockedValue { ($0.byProject.values.flatMap(\.values), $0.loops) }
        if !loops.isEmpty {
            let bytes = StreamEventBytes(both: StreamResponse.chunk(StreamResponse.keepAlive))
            for streams in loops.values { streams.eventLoop.execute { streams.keepAlive(bytes: bytes) } }
        }
        for subscriber in targets { send(.keepAlive, to: subscriber) }
    }
}
