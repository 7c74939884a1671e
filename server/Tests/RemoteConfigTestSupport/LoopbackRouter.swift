import Hummingbird
import Logging

/// Starts a Hummingbird router on a free loopback port: the stand-ins tests talk to (the App Store lookup, a
/// webhook receiver). Returns the port and the task that runs the server; cancelling the task stops it.
func startLoopbackRouter(_ router: Router<BasicRequestContext>, label: String) async throws -> (
    port: Int, task: Task<Void, any Error>
) {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    var logger = Logger(label: label)
    // Stopping with requests in flight (a hanging answer) logs errors that say nothing about the test.
    logger.logLevel = .critical
    let app = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in
            continuation.yield(channel.localAddress?.port ?? 0)
            continuation.finish()
        }, logger: logger)
    let task = Task { try await app.runService(gracefulShutdownSignals: []) }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else {
        task.cancel()
        throw CancellationError()
    }
    return (port, task)
}
