import ServiceLifecycle

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
