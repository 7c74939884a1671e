import Logging
import RemoteConfigStore
import ServiceLifecycle

/// Keeps this server's caches in step with the database: follows the store's events (publishes, keys
/// created and revoked), re-reads everything after each (re)connect since events sent meanwhile are lost,
/// and checks periodically as a safety net; and wakes the background worker an event tells of work.
struct EventListener: Service {
    let database: Database
    let published: PublishedTemplates
    let clientKeys: ClientKeys
    let logger: Logger
    /// How often the safety-net check runs.
    let interval: Duration
    /// The background workers that events tell of work: a change request or a rollout step scheduled, a
    /// webhook delivery queued, on any replica.
    let wakeups: Wakeups

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await listenForever() }
                group.addTask { await checkPeriodically() }
                await group.waitForAll()
            }
        }
    }

    private func listenForever() async {
        for await event in database.events(logger: logger) {
            await handle(event)
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

    private func handle(_ event: StoreEvent) async {
        switch event {
        case .connected:
            // Events sent while the listener was away are lost: re-read everything, and let workers look again.
            wakeups.all()
            await synchronize()
        case .scheduled:
            wakeups.changeRequests.wake()
            wakeups.rollouts.wake()
        case .deliveryQueued:
            wakeups.webhooks.wake()
        case .published(let project, let version):
            guard version > (published.entry(project)?.version ?? -1) else { return }
            do {
                try await published.reload(project)
            } catch {
                logger.warning("could not reload \(project) after a publish: \(error)")
            }
        case .keyCreated:
            clientKeys.forgetUnknown()
            do {
                try await clientKeys.synchronize()
            } catch {
                logger.debug("could not read the keys after a key was created: \(error)")
            }
        case .revoked(let id):
            clientKeys.revoke(id: id)
        }
    }
}
