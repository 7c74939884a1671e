import Foundation
import Logging
import RemoteConfigCore
import RemoteConfigStore

/// Keeps parameters in step with an app's live release on Google Play: claims a link (so exactly one replica
/// syncs it), reads its track through the Google Play Developer API, and when a mapped value differs from the
/// published template, hands the changed template to the same `delivery` as App Store sync (publish or change
/// request, audit, webhooks). A failure of any kind changes no parameter; it is counted, logged and recorded in
/// the link's status, and the link is retried with App Store sync's growing delay.
struct GooglePlaySync: Sendable {
    let links: GooglePlayLinkStore
    let templates: TemplateStore
    let client: GooglePlayClient
    let delivery: any StoreSyncDelivery
    let metrics: ServerMetrics
    let heavyWork: HeavyWork
    let logger: Logger
    let wakeup: Wakeup

    /// Who background syncs are recorded as.
    static let serverActor = StoreSync.serverActor
    /// Background syncs at once on this server, as for App Store sync.
    static let concurrentSyncs = StoreSync.concurrentSyncs
    /// When its syncs run: App Store sync's scheduling, with a count of running syncs of its own.
    let schedule = SyncSchedule(
        name: "Google Play sync", linkName: "Google Play link", concurrent: GooglePlaySync.concurrentSyncs)

    /// Three calls' whole timeouts and a token request's, and room to publish.
    var lease: Duration { client.timeout * 4 + .seconds(60) }

    /// What one sync did.
    enum Outcome: Sendable {
        case published(versionNumber: Int64)
        case changeRequest(id: String)
        case unchanged
        /// The track has no live release: nothing changed.
        case notLive
        case failed(String)
    }

    /// The link with its status after a sync, and what the sync did.
    struct Result: Sendable {
        let link: GooglePlayLink
        let outcome: Outcome
    }

    /// Asks the background loop to look for due links now.
    func wake() { wakeup.wake() }

    /// Starts a sync in `group` for every due link no other replica holds, while fewer than `concurrentSyncs` run.
    func syncDue(in group: inout DiscardingTaskGroup) async throws {
        try await schedule.syncDue(
            in: &group, logger: logger, claimDue: { try await links.claimDue(lease: lease) },
            project: { $0.link.project }, wake: { wake() },
            sync: { claim in _ = try await sync(claim, actor: Self.serverActor) })
    }

    /// Syncs `project`'s link now, enabled or not, once any sync running elsewhere has finished.
    func run(_ project: String, actor: AuditActor) async throws -> Result {
        try await schedule.run(
            lease: lease, claim: { try await links.claim(project, lease: lease) },
            sync: { try await sync($0, actor: actor) })
    }

    /// The key tokens of a link are cached under: a new key is a new entry.
    static func cacheKey(_ link: GooglePlayLink) -> String {
        "\(link.project)|\(link.serviceAccount.clientEmail)|\(link.serviceAccount.privateKeyId)"
    }

    /// Syncs a claimed link and records the outcome, which lets go of it. Throws only when the outcome cannot be
    /// recorded.
    func sync(_ claim: GooglePlayLinkClaim, actor: AuditActor) async throws -> Result {
        let link = claim.link
        let project = link.project
        let settings = link.settings
        do {
            let key = try links.key(of: claim)
            let track = try await client.track(
                packageName: settings.packageName, track: settings.track, key: key, cacheKey: Self.cacheKey(link))
            guard let live = track.live(settings.stagedRollouts) else {
                let note =
                    "the \(settings.track) track has no "
                    + (settings.stagedRollouts == .anyLive ? "completed or in-progress" : "completed")
                    + " release, so nothing changed"
                metrics.storeSync(result: "unchanged", store: "google_play")
                logger.info("Google Play sync of \(project): \(note)")
                let saved = try await links.succeeded(claim, release: nil, note: note)
                return Result(link: saved, outcome: .notLive)
            }
            guard let summary = live.summary else {
                throw StoreSyncProblem(
                    description: "the live release of the \(settings.track) track has no versionCodes")
            }
            let (values, notes) = Self.values(of: live, settings.parameters)
            let outcome = try await apply(values, release: summary, claim: claim, actor: actor)
            let saved = try await links.succeeded(
                claim, release: summary, note: notes.isEmpty ? nil : notes.joined(separator: "; "))
            let named = "\(summary.name ?? "unnamed") (versionCode \(summary.versionCode), \(summary.status))"
            switch outcome {
            case .published(let number):
                metrics.storeSync(result: "published", store: "google_play")
                logger.info("Google Play sync of \(project): live release \(named), published version \(number)")
            case .changeRequest(let id):
                metrics.storeSync(result: "change_request", store: "google_play")
                logger.info("Google Play sync of \(project): live release \(named), change request \(id)")
            case .unchanged, .notLive, .failed:
                metrics.storeSync(result: "unchanged", store: "google_play")
            }
            return Result(link: saved, outcome: outcome)
        } catch StoreLinkError.claimLost {
            logger.warning("Google Play sync of \(project): another server took the link over (the lease ran out)")
            throw StoreLinkError.claimLost
        } catch {
            if Task.isCancelled { throw CancellationError() }
            let message = Self.describe(error)
            metrics.storeSync(result: "failed", store: "google_play")
            let failures = link.status.consecutiveFailures + 1
            let delay = StoreSync.retryDelay(failures: failures, interval: settings.intervalSeconds)
            let next =
                settings.enabled
                ? "next attempt in \(delay)" : "the link is disabled, so nothing retries until it is enabled or run"
            logger.warning("Google Play sync of \(project) failed (\(failures) in a row, \(next)): \(message)")
            let saved = try await links.failed(claim, error: message, retryAfter: delay, actor: actor)
            return Result(link: saved, outcome: .failed(message))
        }
    }

    /// One value for a parameter: the text it receives and the types it may have.
    struct Value: Sendable {
        let parameter: String
        let text: String
        let field: GooglePlayField
    }

    /// The live release's value of every mapping, and a sentence for each one left unchanged (a name that does
    /// not read as a version).
    static func values(of release: GooglePlayTrack.Release, _ mappings: [StoreLinkMapping]) -> ([Value], [String]) {
        var values: [Value] = []
        var notes: [String] = []
        for mapping in mappings {
            guard let field = GooglePlayField(rawValue: mapping.field) else { continue }
            let text: String?
            switch field {
            case .versionName:
                let name = release.name?.trimmingCharacters(in: .whitespaces) ?? ""
                if StoreValueCheck.isVersion(name) {
                    text = name
                } else {
                    text = nil
                    let shown = release.name.map { StoreValueCheck.excerpt($0) } ?? "(none)"
                    notes.append(
                        "the live release's name \(shown) does not read as a version, so \(mapping.parameter) was "
                            + "left unchanged (name the release after its versionName in Play Console)")
                }
            case .versionCode: text = release.versionCode.map(String.init)
            case .inAppUpdatePriority: text = String(release.inAppUpdatePriority ?? 0)
            case .userFraction:
                // A completed release reaches everyone; Google writes no fraction for it.
                text = number(release.status == "completed" ? 1 : (release.userFraction ?? 1))
            case .releaseNotes: text = release.notes ?? ""
            }
            if let text { values.append(Value(parameter: mapping.parameter, text: text, field: field)) }
        }
        return (values, notes)
    }

    /// `1`, `0.25`: a fraction as a NUMBER parameter's value.
    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// Puts the values into the published template and delivers it when any differs.
    private func apply(
        _ values: [Value], release: GooglePlayReleaseSummary, claim: GooglePlayLinkClaim, actor: AuditActor
    ) async throws -> Outcome {
        let project = claim.link.project
        let condition = claim.link.settings.condition
        for attempt in 1...StoreSync.attempts {
            guard let latest = try await templates.latest(project) else {
                throw StoreSyncProblem(description: "nothing is published in \(project) yet")
            }
            let made = try await heavyWork.run(size: latest.templateJSON.utf8.count) {
                () throws -> (PreparedTemplate, [String])? in
                var template = try RemoteConfigTemplate(json: Array(latest.templateJSON.utf8))
                var changed: [String] = []
                for value in values
                where try TemplateValueWriter.set(
                    value.parameter, to: value.text, condition: condition, types: value.field.parameterTypes,
                    in: &template)
                {
                    changed.append(value.parameter)
                }
                guard !changed.isEmpty else { return nil }
                return (try PreparedTemplate(template, extraIssues: TemplateHTTP.textIssues), changed)
            }
            guard let (prepared, changed) = made else { return .unchanged }
            let change = StoreSyncChange(
                fence: claim.fence, autoApprove: claim.link.settings.autoApprove, prepared: prepared,
                baseVersion: latest.versionNumber, description: Self.description(release, changed: changed),
                actor: actor)
            do {
                switch try await delivery.deliver(change) {
                case .published(let stored): return .published(versionNumber: stored.versionNumber)
                case .changeRequest(let id): return .changeRequest(id: id)
                }
            } catch TemplateStoreError.stale where attempt < StoreSync.attempts {
                continue
            }
        }
        throw StoreSyncProblem(description: "the template kept changing while the sync published")
    }

    /// The version's description: the live release, and which parameters took its values.
    static func description(_ release: GooglePlayReleaseSummary, changed: [String]) -> String {
        let name = release.name.map { "\($0) " } ?? ""
        return TextLimits.clippedDescription(
            "Google Play release \(name)(versionCode \(release.versionCode)) (store sync: "
                + "\(changed.joined(separator: ", ")))")
    }

    /// One sentence for `lastError` and the log.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as GooglePlayError: return error.description
        case let error as SealedSecretError: return error.description
        case let error as PreparedTemplate.Failure:
            return "Google Play's values would make the template invalid: \(TemplateHTTP.apiError(error).message)"
        default: return StoreSync.describe(error)
        }
    }
}

extension GooglePlaySync: BackgroundWork {
    var name: String { "Google Play sync" }

    func round(beside: inout DiscardingTaskGroup) async throws -> Duration? {
        try await syncDue(in: &beside)
        return nil
    }
}
