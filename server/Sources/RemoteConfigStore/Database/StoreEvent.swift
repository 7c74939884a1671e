import Logging
import PostgresNIO

/// What a write on one server tells every server sharing the database. The store owns the channel, the
/// payload format and the listening connection; the server only reads typed events.
public enum StoreEvent: Sendable, Equatable {
    /// A version was published (a publish, a rollback, a draft publish).
    case published(project: String, version: Int64)
    /// A key was created: a key another server remembered as unknown may be valid now.
    case keyCreated(id: String)
    /// A key was revoked.
    case revoked(keyID: String)
    /// A change request or a rollout step of `project` is now waiting for its time: schedulers look again.
    case scheduled(project: String)
    /// Webhook deliveries of `project` were queued: deliverers look for work now, not at their next poll.
    case deliveryQueued(project: String)
    /// The listening connection was (re)established. Events sent while it was down are lost, so whoever
    /// keeps caches re-reads them now.
    case connected

    /// The NOTIFY channel.
    static let channel = "rc_events"

    /// The NOTIFY payload (`publish <project> <version>`, `key <id>`, `revoke <id>`, `schedule <project>`,
    /// `deliver <project>`).
    var payload: String? {
        switch self {
        case .published(let project, let version): "publish \(project) \(version)"
        case .keyCreated(let id): "key \(id)"
        case .revoked(let id): "revoke \(id)"
        case .scheduled(let project): "schedule \(project)"
        case .deliveryQueued(let project): "deliver \(project)"
        case .connected: nil
        }
    }

    /// The event a payload carries; nil for one this version does not know (a newer server's).
    init?(payload: String) {
        let parts = payload.split(separator: " ")
        switch parts.first {
        case "publish" where parts.count == 3:
            guard let version = Int64(parts[2]) else { return nil }
            self = .published(project: String(parts[1]), version: version)
        case "key" where parts.count == 2: self = .keyCreated(id: String(parts[1]))
        case "revoke" where parts.count == 2: self = .revoked(keyID: String(parts[1]))
        case "schedule" where parts.count == 2: self = .scheduled(project: String(parts[1]))
        case "deliver" where parts.count == 2: self = .deliveryQueued(project: String(parts[1]))
        default: return nil
        }
    }

    /// Sends the event to every listener, as part of the transaction on `connection` (it is delivered only
    /// if the transaction commits).
    func notify(on connection: PostgresConnection, logger: Logger) async throws {
        guard let payload else { return }
        try await connection.query("SELECT pg_notify(\(Self.channel), \(payload))", logger: logger)
    }
}

extension Database {
    /// Every server's events, for as long as the sequence is iterated: LISTEN on a dedicated connection,
    /// reconnecting at most a quarter of a second apart while the database is away, with `.connected` after
    /// each (re)connect. While connected, a failing pool is renewed (`recoverIfFailing`).
    public func events(logger: Logger) -> AsyncStream<StoreEvent> {
        AsyncStream { continuation in
            let task = Task { await listen(logger: logger) { continuation.yield($0) } }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func listen(logger: Logger, _ deliver: @escaping @Sendable (StoreEvent) -> Void) async {
        // Retries are cheap (a refused connection) and recovery after an outage waits for the next one, so
        // they stay frequent.
        var delay = Duration.milliseconds(50)
        var failures = 0
        while !Task.isCancelled {
            do {
                let handle = try await PostgresConnectionHandle.open(url, logger: logger, timeout: .seconds(5))
                // The database answers a direct connection: if the pool failed meanwhile, renew it now.
                await recoverIfFailing()
                do {
                    try await handle.connection.listen(on: StoreEvent.channel) { notifications in
                        delay = .milliseconds(50)
                        failures = 0
                        deliver(.connected)
                        for try await notification in notifications {
                            if let event = StoreEvent(payload: notification.payload) {
                                deliver(event)
                            } else {
                                logger.debug("ignoring event \(notification.payload)")
                            }
                        }
                    }
                } catch {
                    await handle.close()
                    throw error
                }
                await handle.close()
            } catch {
                if Task.isCancelled { return }
                noteUnreachable()
                failures += 1
                // One warning when the connection is lost, then one a minute while it stays lost.
                let level: Logger.Level = failures == 1 || failures % 240 == 0 ? .warning : .debug
                logger.log(
                    level: level,
                    "event listener disconnected (\(failures) attempts): \(String(describing: error)); retrying")
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .milliseconds(250))
        }
    }
}
