import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What changed in a realtime update: the keys whose fetched value differs from the active one.
public struct RemoteConfigUpdate: Sendable, Hashable {
    /// Keys added, removed or changed between the active values and the newly fetched ones.
    public let updatedKeys: Set<String>

    /// Creates an update.
    public init(updatedKeys: Set<String>) {
        self.updatedKeys = updatedKeys
    }
}

/// A realtime listener's handle; `remove()` detaches it, and removing the last one closes the stream.
public final class ConfigUpdateListenerRegistration: Sendable {
    private let onRemove: Locked<(@Sendable () -> Void)?>

    init(onRemove: @escaping @Sendable () -> Void) {
        self.onRemove = Locked(onRemove)
    }

    /// Detaches the listener; calling it again does nothing.
    public func remove() {
        let action = onRemove.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }
}

/// Listener callback: an update, or a `RemoteConfigError`: a connection failure (the stream keeps reconnecting), a
/// failed fetch the stream triggered, or a refused key (the stream has stopped).
public typealias ConfigUpdateListener = @Sendable (RemoteConfigUpdate?, (any Error)?) -> Void

/// A listener as the SDK keeps it: `stopped` tells whether an error ended the stream, so `configUpdates()` can end
/// its sequence only then and not on every dropped connection.
typealias RealtimeListener = @Sendable (_ update: RemoteConfigUpdate?, _ error: (any Error)?, _ stopped: Bool) -> Void

/// The realtime stream's state, guarded by the instance's lock.
struct RealtimeState: Sendable {
    var listeners: [UUID: RealtimeListener] = [:]
    var task: Task<Void, Never>?
    /// Which stream task is current; a task replaced by `reconnectRealtime()` must not clear its successor.
    var generation = 0
    var lastEventId: String?
    /// The fetched values last reported, so a reconnect does not report them again.
    var lastReported: ConfigSnapshot?
}

extension RemoteConfig {
    /// Longest wait between two reconnect attempts (before up to 20% jitter), unless the server asks for more with
    /// `retry:` or `Retry-After`. Short, because a realtime listener that comes back long after the server did is
    /// what it exists to avoid; a failed attempt against a down server costs little.
    static let maximumReconnectDelay: TimeInterval = 5

    /// Listens for published changes: opens the server's event stream (if not open), fetches when a newer template
    /// version is announced (bypassing the throttle) and calls `listener` with the keys that differ from the active
    /// values. Call `activate()` to use them.
    @discardableResult
    public func addOnConfigUpdateListener(
        remoteConfigUpdateCompletion listener: @escaping ConfigUpdateListener
    ) -> ConfigUpdateListenerRegistration {
        addRealtimeListener { update, error, _ in listener(update, error) }
    }

    /// Registers a listener that also learns whether an error stopped the stream; starts the stream if needed.
    func addRealtimeListener(_ listener: @escaping RealtimeListener) -> ConfigUpdateListenerRegistration {
        let id = UUID()
        realtime.withLock { realtime in
            realtime.listeners[id] = listener
            if realtime.task == nil { startStream(&realtime) }
        }
        return ConfigUpdateListenerRegistration { [weak self] in
            self?.removeListener(id)
        }
    }

    /// Realtime updates as an async sequence; ending the iteration detaches the listener. The sequence throws only
    /// when the stream stops for good (a refused key); connection failures are retried without ending it.
    public func configUpdates() -> AsyncThrowingStream<RemoteConfigUpdate, any Error> {
        let (stream, continuation) = AsyncThrowingStream<RemoteConfigUpdate, any Error>.makeStream()
        let registration = addRealtimeListener { update, error, stopped in
            if let update { continuation.yield(update) }
            if let error, stopped { continuation.finish(throwing: error) }
        }
        continuation.onTermination = { _ in registration.remove() }
        return stream
    }

    /// Whether the realtime stream is open or reconnecting.
    public var isListeningForUpdates: Bool { realtime.withLock { $0.task != nil } }

    /// Drops the realtime connection and opens a new one at once, skipping any reconnect wait; does nothing without
    /// listeners. Call it when the app returns to the foreground (`sceneWillEnterForeground(_:)`, or `scenePhase`
    /// becoming `.active`): a connection suspended in the background may be dead without anyone knowing yet, and a
    /// publish made meanwhile is then reported at once (the new connection sends `Last-Event-ID`).
    public func reconnectRealtime() {
        let old: Task<Void, Never>? = realtime.withLock { realtime in
            guard let old = realtime.task else { return nil }
            startStream(&realtime)
            return old
        }
        old?.cancel()
    }

    /// Starts a new stream task as the current one.
    private func startStream(_ realtime: inout RealtimeState) {
        realtime.generation += 1
        let generation = realtime.generation
        realtime.task = Task { await self.runStream(generation: generation) }
    }

    private func removeListener(_ id: UUID) {
        let task: Task<Void, Never>? = realtime.withLock { realtime in
            realtime.listeners[id] = nil
            guard realtime.listeners.isEmpty else { return nil }
            defer { realtime.task = nil }
            return realtime.task
        }
        task?.cancel()
    }

    private func notifyListeners(_ update: RemoteConfigUpdate?, _ error: (any Error)?, stopped: Bool = false) {
        let listeners = realtime.withLock { Array($0.listeners.values) }
        for listener in listeners { listener(update, error, stopped) }
    }

    /// Connects, reads events, reconnects with backoff until cancelled or the server refuses the key. Every failed
    /// attempt is reported to the listeners, so an app can tell "no news" from "not connected".
    private func runStream(generation: Int) async {
        var failures = 0
        var serverRetry: TimeInterval?
        while !Task.isCancelled {
            var delayOverride: TimeInterval?
            do {
                let (response, chunks) = try await transport.stream(makeStreamRequest())
                switch response.statusCode {
                case 200:
                    failures = 0
                    var parser = ServerSentEventParser()
                    for try await chunk in chunks {
                        for event in parser.feed(chunk) { await handle(event) }
                        if let milliseconds = parser.retryMilliseconds { serverRetry = Double(milliseconds) / 1000 }
                    }
                case 401, 403, 404:
                    Self.close(chunks)
                    let error: RemoteConfigError =
                        response.statusCode == 404
                        ? .server(statusCode: 404, status: "NOT_FOUND", message: nil)
                        : .keyRefused(statusCode: response.statusCode, message: nil)
                    stopStream(generation: generation)
                    notifyListeners(nil, error, stopped: true)
                    return
                default:
                    Self.close(chunks)
                    let retryAfter = Wire.retryAfter(response, now: now())
                    failures += 1
                    let delay =
                        retryAfter.map { min($0, Self.maximumBackoff) }
                        ?? Self.reconnectDelay(failures: failures, serverRetry: serverRetry)
                    delayOverride = delay
                    let error: RemoteConfigError =
                        [429, 503, 504].contains(response.statusCode)
                        ? .unavailable(
                            statusCode: response.statusCode, retryAfter: retryAfter,
                            until: now().addingTimeInterval(delay))
                        : .server(statusCode: response.statusCode, status: nil, message: nil)
                    notifyListeners(nil, error)
                }
            } catch {
                if Task.isCancelled { return }
                failures += 1
                notifyListeners(nil, RemoteConfigError.from(transportError: error))
            }
            // Cancelled (the last listener left, or `reconnectRealtime()` replaced this task): no wait, no retry.
            if Task.isCancelled { return }
            let delay = delayOverride ?? Self.reconnectDelay(failures: failures, serverRetry: serverRetry)
            do { try await sleep(delay) } catch { return }
        }
    }

    /// Closes a stream whose body is not wanted (an error answer): cancelling a read terminates it.
    private static func close(_ chunks: AsyncThrowingStream<Data, any Error>) {
        Task { for try await _ in chunks {} }.cancel()
    }

    /// The stream ended on its own (key refused): forget the task so a new listener starts a new one.
    private func stopStream(generation: Int) {
        realtime.withLock { realtime in
            if realtime.generation == generation { realtime.task = nil }
        }
    }

    /// `retry:` (default 1 s) after a clean close, doubling per failed attempt up to 5 seconds (or the server's longer
    /// `retry:`), plus up to 20% jitter.
    static func reconnectDelay(failures: Int, serverRetry: TimeInterval?) -> TimeInterval {
        let base = serverRetry ?? 1
        let delay = min(base * pow(2, Double(min(failures, 20))), max(base, maximumReconnectDelay))
        return delay * Double.random(in: 1...1.2)
    }

    private func makeStreamRequest() -> URLRequest {
        var request = URLRequest(url: Wire.url(server: serverURL, project: project, verb: "stream"))
        request.httpMethod = "GET"
        request.setValue(clientKey, forHTTPHeaderField: "X-API-Key")
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        let known = knownTemplateVersion()
        let lastEventId = realtime.withLock { $0.lastEventId } ?? (known > 0 ? String(known) : nil)
        if let lastEventId { request.setValue(lastEventId, forHTTPHeaderField: "Last-Event-ID") }
        return request
    }

    /// The newest template version this device has values for or has confirmed unchanged.
    private func knownTemplateVersion() -> Int {
        state.withLock { state in
            let persisted = state.persisted
            return [
                persisted.active?.templateVersion.flatMap { Int($0) },
                persisted.fetched?.templateVersion.flatMap { Int($0) },
                persisted.confirmedTemplateVersion,
            ].compactMap { $0 }.max() ?? 0
        }
    }

    /// Handles one event: a `version` event announcing a newer template triggers a fetch and a report.
    private func handle(_ event: ServerSentEvent) async {
        if !event.lastEventId.isEmpty { realtime.withLock { $0.lastEventId = event.lastEventId } }
        guard event.type == "version",
            let payload = try? JSONDecoder().decode(VersionEventData.self, from: Data(event.data.utf8)),
            let announced = Int(payload.latestTemplateVersionNumber)
        else { return }
        let activeVersion = state.withLock { $0.persisted.active?.templateVersion.flatMap { Int($0) } } ?? 0
        guard announced > activeVersion else { return }
        if announced > knownTemplateVersion() {
            do {
                _ = try await performFetch(minimumInterval: nil)
                state.withLock { state in
                    state.persisted.confirmedTemplateVersion = max(
                        state.persisted.confirmedTemplateVersion ?? 0, announced)
                    stateFile.save(state.persisted)
                }
            } catch {
                notifyListeners(nil, error)
                return
            }
        }
        reportPendingChanges()
    }

    /// Tells listeners which keys the fetched values change, once per fetched snapshot.
    private func reportPendingChanges() {
        let (active, fetched) = state.withLock { ($0.persisted.active, $0.persisted.fetched) }
        guard let fetched else { return }
        let updatedKeys = Self.changedKeys(from: active?.entries ?? [:], to: fetched.entries)
        guard !updatedKeys.isEmpty else { return }
        let isNew = realtime.withLock { realtime in
            guard !fetched.hasSameValues(as: realtime.lastReported) else { return false }
            realtime.lastReported = fetched
            return true
        }
        if isNew { notifyListeners(RemoteConfigUpdate(updatedKeys: updatedKeys), nil) }
    }

    /// Keys added, removed or with a different value.
    static func changedKeys(from old: [String: String], to new: [String: String]) -> Set<String> {
        Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }
    }
}
