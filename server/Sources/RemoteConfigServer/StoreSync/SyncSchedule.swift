import Logging
import NIOConcurrencyHelpers
import RemoteConfigStore

/// When the store syncs (App Store and Google Play) run: in the background, a sync for every due link that no
/// other replica holds, at most `concurrent` at once on this server, each one that ends waking the worker so a
/// backlog is worked through as slots free; and on request, one project's sync, which waits out another
/// replica's claim for at most one lease.
struct SyncSchedule: Sendable {
    /// What log lines call a sync ("store sync").
    let name: String
    /// What errors call the link ("store link").
    let linkName: String
    /// Background syncs running at once on this server, at most.
    let concurrent: Int
    /// Background syncs running now (shared by every copy of this value).
    let running = NIOLockedValueBox(0)

    /// Starts `sync` in `group` for each claim `claimDue` gives, while a slot is free.
    func syncDue<Claim: Sendable>(
        in group: inout DiscardingTaskGroup, logger: Logger, claimDue: () async throws -> Claim?,
        project: @escaping @Sendable (Claim) -> String, wake: @escaping @Sendable () -> Void,
        sync: @escaping @Sendable (Claim) async throws -> Void
    ) async throws {
        do {
            while !Task.isCancelled, takeSlot() {
                guard let claim = try await claimDue() else {
                    releaseSlot()
                    return
                }
                group.addTask {
                    defer {
                        releaseSlot()
                        wake()
                    }
                    do {
                        try await sync(claim)
                    } catch {
                        logger.warning("\(name) of \(project(claim)): could not record the outcome: \(error)")
                    }
                }
            }
        } catch {
            releaseSlot()
            throw error
        }
    }

    /// Runs `sync` on the claim `claim` gives, trying again while another replica holds the link, for at most
    /// `lease` (its answer is seconds away at most).
    func run<Claim, Result>(
        lease: Duration, claim: () async throws -> Claim?, sync: (Claim) async throws -> Result
    ) async throws -> Result {
        let start = ContinuousClock.now
        while true {
            if let claim = try await claim() {
                do {
                    return try await sync(claim)
                } catch StoreLinkError.claimLost {
                    throw APIError.aborted("another server took this sync over; read the \(linkName) again")
                }
            }
            guard ContinuousClock.now - start < lease else {
                throw APIError.aborted("another server is syncing this \(linkName); retry shortly")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    private func takeSlot() -> Bool {
        running.withLockedValue { count in
            guard count < concurrent else { return false }
            count += 1
            return true
        }
    }

    private func releaseSlot() { running.withLockedValue { $0 -= 1 } }
}
