import Foundation
import Logging
import RemoteConfigCore
import RemoteConfigStore

/// Keeps parameters in step with the App Store: claims a link (so exactly one replica syncs it), looks the app
/// up, and when a mapped value differs from the published template, hands the changed template to `delivery`.
/// A failure of any kind changes no parameter; it is counted, logged and recorded in the link's status, and the
/// link is retried later with a growing delay.
struct StoreSync: Sendable {
    let links: StoreLinkStore
    let templates: TemplateStore
    let lookup: AppStoreLookup
    let delivery: any StoreSyncDelivery
    let metrics: ServerMetrics
    /// Where a large template's sync is decoded and compiled.
    let heavyWork: HeavyWork
    let logger: Logger
    /// Wakes its background worker so a link saved just now is synced without waiting.
    let wakeup: Wakeup

    /// Who background syncs are recorded as (audit actor, `updateUser`).
    static let serverActor = AuditActor(keyId: nil, displayName: "store sync")
    /// Versions published since a sync read the template make it read again, this many times at most.
    static let attempts = 3
    /// Background syncs running at once on this server: enough that a store that hangs until the lookup's
    /// timeout delays no other project's sync, few enough that a due backlog cannot flood the store or the pool.
    static let concurrentSyncs = 4

    /// When its syncs run (the scheduling Google Play sync shares); its count of running syncs is its own.
    let schedule = SyncSchedule(name: "store sync", linkName: "store link", concurrent: StoreSync.concurrentSyncs)

    /// How long a claim holds a link: the lookup's whole timeout, and room to publish.
    var lease: Duration { lookup.timeout + .seconds(60) }

    /// Asks the background loop to look for due links now.
    func wake() { wakeup.wake() }

    /// Starts a sync in `group` for every link that is due and not held by another replica, while fewer than
    /// `concurrentSyncs` run; each one that ends wakes the worker, so a backlog is worked through as slots free.
    func syncDue(in group: inout DiscardingTaskGroup) async throws {
        try await schedule.syncDue(
            in: &group, logger: logger, claimDue: { try await links.claimDue(lease: lease) },
            project: { $0.link.project }, wake: { wake() },
            sync: { claim in _ = try await sync(claim, actor: Self.serverActor) })
    }

    /// Syncs `project`'s link now, enabled or not, once any sync running elsewhere has finished.
    /// `StoreError.notFound` when the project has no link.
    func run(_ project: String, actor: AuditActor) async throws -> StoreSyncResult {
        try await schedule.run(
            lease: lease, claim: { try await links.claim(project, lease: lease) },
            sync: { try await sync($0, actor: actor) })
    }

    /// Syncs a claimed link and records the outcome, which lets go of it. Throws only when the outcome cannot be
    /// recorded (the database is away, or the lease ran out and another sync took over).
    func sync(_ claim: StoreLinkClaim, actor: AuditActor) async throws -> StoreSyncResult {
        let project = claim.link.project
        let settings = claim.link.settings
        do {
            let listing = try await lookup.lookup(appStoreId: settings.appStoreId, country: settings.country)
            let outcome = try await apply(listing, claim: claim, actor: actor)
            let pendingUntil: Date? = if case .pending(_, let until) = outcome { until } else { nil }
            let link = try await links.succeeded(claim, storeVersion: listing.version, pendingUntil: pendingUntil)
            switch outcome {
            case .published(let number):
                metrics.storeSync(result: "published")
                logger.info(
                    "store sync of \(project): App Store version \(listing.version), published version \(number)")
            case .changeRequest(let id):
                metrics.storeSync(result: "change_request")
                logger.info("store sync of \(project): App Store version \(listing.version), change request \(id)")
            case .pending(let version, let until):
                metrics.storeSync(result: "unchanged")
                logger.info(
                    "store sync of \(project): App Store version \(version) is held back until \(until) (releaseDelaySeconds)"
                )
            case .unchanged, .failed:
                metrics.storeSync(result: "unchanged")
            }
            return StoreSyncResult(link: link, outcome: outcome)
        } catch StoreLinkError.claimLost {
            logger.warning("store sync of \(project): another server took the link over (the lease ran out)")
            throw StoreLinkError.claimLost
        } catch {
            // Stopping mid-sync (shutdown) is not the store's failure: the lease runs out and another server syncs.
            if Task.isCancelled { throw CancellationError() }
            let message = Self.describe(error)
            metrics.storeSync(result: "failed")
            let failures = claim.link.status.consecutiveFailures + 1
            let delay = Self.retryDelay(failures: failures, interval: settings.intervalSeconds)
            let next =
                settings.enabled
                ? "next attempt in \(delay)" : "the link is disabled, so nothing retries until it is enabled or run"
            logger.warning("store sync of \(project) failed (\(failures) in a row, \(next)): \(message)")
            let link = try await links.failed(claim, error: message, retryAfter: delay, actor: actor)
            return StoreSyncResult(link: link, outcome: .failed(message))
        }
    }

    /// When a listing may be published, if that is later than `now`: its `currentVersionReleaseDate` plus
    /// `delay`. With no delay nothing is held back; with one, a listing without a readable release date is
    /// refused rather than published early.
    static func heldUntil(_ listing: StoreListing, delay: Int, now: Date) throws -> Date? {
        guard delay > 0 else { return nil }
        guard let text = listing.fields[.currentVersionReleaseDate] else {
            throw StoreSyncProblem(
                description: "the App Store's answer has no currentVersionReleaseDate, so releaseDelaySeconds "
                    + "cannot be applied (set it to 0 to publish at once)")
        }
        guard let released = RFC3339.parse(text) else {
            throw StoreSyncProblem(
                description: "the App Store's currentVersionReleaseDate is not an RFC 3339 time: "
                    + StoreValueCheck.excerpt(text))
        }
        let until = released.addingTimeInterval(TimeInterval(delay))
        return until > now ? until : nil
    }

    /// Puts the listing's values into the published template and delivers it when any differs, unless the
    /// listing's release is not `releaseDelaySeconds` old yet.
    private func apply(_ listing: StoreListing, claim: StoreLinkClaim, actor: AuditActor) async throws
        -> StoreSyncResult.Outcome
    {
        let project = claim.link.project
        for attempt in 1...Self.attempts {
            guard let latest = try await templates.latest(project) else {
                throw StoreSyncProblem(description: "nothing is published in \(project) yet")
            }
            let mappings = claim.link.settings.parameters
            let made = try await heavyWork.run(size: latest.templateJSON.utf8.count) {
                () throws -> (PreparedTemplate, [String])? in
                var template = try RemoteConfigTemplate(json: Array(latest.templateJSON.utf8))
                let changed = try Self.apply(listing, mappings, to: &template)
                guard !changed.isEmpty else { return nil }
                return (try PreparedTemplate(template, extraIssues: TemplateHTTP.textIssues), changed)
            }
            guard let (prepared, changed) = made else { return .unchanged }
            let delay = claim.link.settings.releaseDelaySeconds
            if let until = try Self.heldUntil(listing, delay: delay, now: Date()) {
                return .pending(version: listing.version, until: until)
            }
            let change = StoreSyncChange(
                fence: claim.fence, autoApprove: claim.link.settings.autoApprove, prepared: prepared,
                baseVersion: latest.versionNumber,
                description: Self.description(version: listing.version, changed: changed), actor: actor)
            do {
                switch try await delivery.deliver(change) {
                case .published(let stored): return .published(versionNumber: stored.versionNumber)
                case .changeRequest(let id): return .changeRequest(id: id)
                }
            } catch TemplateStoreError.stale where attempt < Self.attempts {
                continue  // someone published meanwhile: start again from their version
            }
        }
        throw StoreSyncProblem(description: "the template kept changing while the sync published")
    }

    /// Sets each mapped parameter's default value to the listing's field (`TemplateValueWriter`); returns the
    /// parameters whose value changed. Conditional values are people's and stay as they are.
    static func apply(
        _ listing: StoreListing, _ mappings: [StoreLinkMapping], to template: inout RemoteConfigTemplate
    ) throws -> [String] {
        var changed: [String] = []
        for mapping in mappings {
            guard let field = StoreField(rawValue: mapping.field), let value = listing.fields[field] else {
                throw StoreSyncProblem(description: "the App Store's answer has no \(mapping.field)")
            }
            let key = mapping.parameter
            try StoreValueCheck.check(value, field: field, parameter: key)
            if try TemplateValueWriter.set(key, to: value, condition: nil, types: [.string], in: &template) {
                changed.append(key)
            }
        }
        return changed
    }

    /// The version's description: the store version, and which parameters took it.
    static func description(version: String, changed: [String]) -> String {
        TextLimits.clippedDescription("App Store version \(version) (store sync: \(changed.joined(separator: ", ")))")
    }

    /// The wait after the `failures`-th failure in a row: a minute, doubling each time, up to the larger of the
    /// interval and an hour. A store that is briefly down is tried again soon, one that stays down is not hammered.
    static func retryDelay(failures: Int, interval: Int) -> Duration {
        let cap = Double(max(interval, 3600))
        let delay = min(cap, 60 * pow(2, Double(min(max(failures - 1, 0), 30))))
        return .seconds(delay)
    }

    /// One sentence for `lastError` and the log.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as StoreLookupError: return error.description
        case let error as StoreSyncProblem: return error.description
        case let error as PreparedTemplate.Failure:
            return "the App Store's values would make the template invalid: \(TemplateHTTP.apiError(error).message)"
        case let error as TemplateDecodingError: return "the published template cannot be read: \(error)"
        case let error as StoreError: return "\(error)"
        case let error as APIError: return error.message
        default: return "\(error)"
        }
    }
}
