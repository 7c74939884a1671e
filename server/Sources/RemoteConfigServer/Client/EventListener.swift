import Logging
import PostgresNIO
import RemoteConfigStore
import ServiceLifecycle

/// Keeps this server's caches in step with the database: LISTENs for publishes and revocations on one
/// dedicated connection, re-reads everything after each (re)connect since notifications sent meanwhile
/// are lost, and checks periodically as a safety net.
struct EventListener: Service {
    let database: Database
    let published: PublishedTemplates
    let clientKeys: ClientKeys
    let logger: Logger
    /// How often the safety-net check runs.
    let interval: Duration

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await listenForever() }
                group.addTask { await checkPeriodically() }
                await group.waitForAll()
            }
        }
    }

    private func listenForever() async {
        // Retries are cheap (a refused connection) and recovery after an outage waits for the next one, so
        // they stay frequent: at most a quarter of a second apart.
        var delay = Duration.milliseconds(50)
        var failures = 0
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnectionHandle.open(
                    database.url, logger: logger, timeout: .seconds(5))
                // The database answers a direct connection: if the pool failed meanwhile, renew it now.
                await database.recoverIfFailing()
                do {
                    try await connection.connection.listen(on: TemplateStore.channel) { notifications in
                        delay = .milliseconds(50)
                        failures = 0
                        await synchronize()
                        for try await notification in notifications {
                            await handle(notification.payload)
                        }
                    }
                } catch {
                    await connection.close()
                    throw error
                }
                await connection.close()
            } catch {
                if Task.isCancelled { return }
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

    private func checkPeriodically() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            await synchronize()
        }
    }

    private func synchronize() async {
        do {
            try await published.synchronize()
            try await clientKeys.synchronize()
        } catch {
            logger.debug("cache synchronisation failed: \(error)")
        }
    }

    /// `publish <project> <version>`, `key <key id>` or `revoke <key id>`.
    private func handle(_ payload: String) async {
        let parts = payload.split(separator: " ")
        switch parts.first {
        case "publish" where parts.count == 3:
            let project = String(parts[1])
            guard let version = Int64(parts[2]), version > (published.entry(project)?.version ?? -1) else { return }
            do {
                try await published.reload(project)
            } catch {
                logger.warning("could not reload \(project) after a publish: \(error)")
            }
        case "key" where parts.count == 2:
            clientKeys.forgetUnknown()
            do {
                try await clientKeys.synchronize()
            } catch {
                logger.debug("could not read the keys after a key was created: \(error)")
            }
        case "revoke" where parts.count == 2:
            clientKeys.revoke(id: String(parts[1]))
        default:
            logger.debug("ignoring event \(payload)")
        }
    }
}
