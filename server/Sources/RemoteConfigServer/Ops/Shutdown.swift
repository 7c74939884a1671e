import Hummingbird
import Logging
import ServiceLifecycle

/// How long SIGTERM or SIGINT lets requests in flight finish before they are cancelled: the process exits
/// within a few seconds whatever is running (a slow upload, a request waiting for the database).
public let gracefulShutdownLimit: Duration = .seconds(3)

/// Runs `app` until SIGTERM or SIGINT, then stops it: no new connections, requests in flight get
/// `gracefulShutdownLimit` to finish, and whatever is still running after that is cancelled.
public func runUntilSignalled(_ app: some ApplicationProtocol, logger: Logger) async throws {
    var configuration = ServiceGroupConfiguration(
        services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    configuration.maximumGracefulShutdownDuration = gracefulShutdownLimit
    try await ServiceGroup(configuration: configuration).run()
}
