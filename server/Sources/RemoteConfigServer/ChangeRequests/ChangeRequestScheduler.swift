import Logging
import RemoteConfigStore

/// Publishes scheduled change requests when their time has come (a `Worker`). Every replica runs one; the store
/// makes sure each request is published once (under its project's row lock, only while still `SCHEDULED`), by
/// whichever replica gets there first.
///
/// The database decides, not a timer: each round asks it for what is due and how long until the next one, by
/// its clock, which every replica shares. Between rounds the worker sleeps until that next time, or until told
/// that a request was scheduled (the store's NOTIFY, on any replica) or that the event listener reconnected.
/// So a request whose time passed while no replica ran is published as soon as one starts.
struct ChangeRequestScheduler: BackgroundWork {
    let changeRequests: ChangeRequestStore
    let publishing: Publishing
    let logger: Logger

    var name: String { "scheduled publishes" }

    /// Publishes what is due now, and tells this server's cache of each version at once.
    func round(beside: inout DiscardingTaskGroup) async throws -> Duration? {
        for done in try await changeRequests.publishDue() {
            await publishing.announce(done.version)
            logger.info(
                "published scheduled \(ChangeRequest.name(done.request.id)) of \(done.request.project) as version \(done.version.versionNumber)"
            )
        }
        guard let next = try await changeRequests.nextDue() else { return nil }
        // Still due: another replica holds the project's lock (publishing it), or more than a round's worth.
        return next <= .zero ? .milliseconds(100) : next
    }
}
