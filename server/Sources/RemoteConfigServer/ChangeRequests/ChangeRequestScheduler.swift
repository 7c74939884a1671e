import Logging
import RemoteConfigStore
import ServiceLifecycle

/// Publishes scheduled change requests when their time has come. Every replica runs one; the store makes
/// sure each request is published once (under its project's row lock, only while still `SCHEDULED`), by
/// whichever replica gets there first. It asks the database rather than keeping timers, so a request whose
/// time passed while no replica ran is published as soon as one starts, and the database's clock decides.
struct ChangeRequestScheduler: Service {
    let changeRequests: ChangeRequestStore
    let templatesController: TemplatesController
    let logger: Logger
    /// How often it asks for due requests: well under the second a publish may be late by.
    let interval: Duration

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await publishDue()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Publishes what is due now, and tells this server's cache of each version at once.
    func publishDue() async {
        do {
            for done in try await changeRequests.publishDue() {
                _ = try await templatesController.publishing { done.version }
                logger.info(
                    "published scheduled \(ChangeRequest.name(done.request.id)) of \(done.request.project) as version \(done.version.versionNumber)"
                )
            }
        } catch let error as StoreError {
            // The database is away or slow: the next round tries again.
            logger.debug("scheduled publishes: \(error)")
        } catch {
            logger.warning("scheduled publishes: \(String(reflecting: error))")
        }
    }
}
