import ServiceLifecycle

/// The background loop of store sync on this server: every `pollInterval`, and whenever a link was saved here,
/// it syncs the links that are due. Every replica runs one; the claim in the database makes each sync happen on
/// exactly one of them.
struct StoreSyncService: Service {
    let sync: StoreSync
    let pollInterval: Duration
    /// Rung by `StoreSync.wake()`.
    let doorbell: AsyncStream<Void>

    func run() async throws {
        // Ends quietly at shutdown: the cancellation is how it is asked to stop, not an error. A sync in flight
        // is cut short; its claim's lease runs out and another replica syncs the link.
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    // First after one interval: start-up has the database to itself, and a link saved here
                    // rings at once anyway.
                    while !Task.isCancelled {
                        try? await Task.sleep(for: pollInterval)
                        sync.wake()
                    }
                }
                group.addTask {
                    // Syncs run beside the loop (a few at once), so one store that hangs holds up no other.
                    await withDiscardingTaskGroup { syncs in
                        for await _ in doorbell {
                            if Task.isCancelled { return }
                            await sync.syncDue(in: &syncs)
                        }
                    }
                }
                await group.waitForAll()
            }
        }
    }
}
