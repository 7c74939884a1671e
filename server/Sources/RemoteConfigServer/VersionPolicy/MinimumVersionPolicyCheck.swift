import Foundation
import Logging
import RemoteConfigCore
import RemoteConfigStore

/// Checks minimum-version policies when they are due (a `Worker`): claims one (so exactly one replica checks
/// it), reads the platform's fleet as `insights/minimumVersion` does, and when the fleet bears a higher minimum
/// within the policy's limits, raises the parameter as a change request or a publish. Every check records its
/// outcome and figures on the policy.
struct MinimumVersionPolicyCheck: BackgroundWork {
    let policies: MinimumVersionPolicyStore
    let templates: TemplateStore
    let insights: InsightsStore
    /// False with `--insights off`: there is no fleet to read.
    let insightsEnabled: Bool
    let projects: ProjectStore
    let changeRequests: ChangeRequestStore
    let publishing: Publishing
    let heavyWork: HeavyWork
    let logger: Logger

    /// Who a raise is recorded as (audit actor, `updateUser`, change request author).
    static let actor = AuditActor(keyId: nil, displayName: "minimum version policy")
    /// How long a claim holds a policy: far more than a check takes, so a replica that dies mid-check lets
    /// another take it over within a minute.
    static let lease = Duration.seconds(60)
    /// The window the fleet is read over: `insights/minimumVersion`'s default.
    static let window: TimeInterval = 7 * 86_400
    /// Policies checked in one round before the worker yields.
    static let perRound = 20
    /// Versions published since a check read the template make it read again, this many times at most.
    static let attempts = 3

    var name: String { "minimum version policy" }

    func round(beside: inout DiscardingTaskGroup) async throws -> Duration? {
        for _ in 0..<Self.perRound {
            guard let claim = try await policies.claimDue(lease: Self.lease) else { return nil }
            do {
                try await check(claim)
            } catch is LeaseLost {
                logger.warning("minimum version policy of \(claim.policy.project): another server took the check over")
            }
        }
        return .zero
    }

    /// Checks a claimed policy and records the outcome, which lets go of it.
    func check(_ claim: MinimumVersionPolicyClaim) async throws {
        let project = claim.policy.project
        for attempt in 1...Self.attempts {
            do {
                let outcome = try await decide(claim)
                logger.info("minimum version policy of \(project): \(outcome.result.rawValue): \(outcome.detail)")
                return
            } catch TemplateStoreError.stale where attempt < Self.attempts {
                continue  // someone published meanwhile: decide again from their version
            }
        }
    }

    /// Reads the fleet and the template, decides, and writes what it decided.
    private func decide(_ claim: MinimumVersionPolicyClaim) async throws -> MinimumVersionPolicyOutcome {
        let project = claim.policy.project
        let settings = claim.policy.settings
        guard insightsEnabled else {
            return try await finish(claim, .notEnoughData, nil, "insights are off on this server (--insights off)")
        }
        guard let latest = try await templates.latest(project) else {
            return try await finish(claim, .notEnoughData, nil, "nothing is published in \(project) yet")
        }
        let template: PreparedTemplate
        do {
            template = try await heavyWork.run(size: latest.templateJSON.utf8.count) {
                try PreparedTemplate.prepare(json: Array(latest.templateJSON.utf8))
            }
        } catch {
            return try await finish(claim, .limited, nil, "the published template cannot be read: \(error)")
        }
        let target: MinimumVersionTarget
        do {
            target = try MinimumVersionTarget(settings, in: template.template)
        } catch let problem as MinimumVersionTarget.Problem {
            return try await finish(claim, .limited, nil, problem.description)
        }
        let now = Date()
        let fleet = MinimumVersionFleet(
            versions: try await insights.versionTallies(
                project: project, since: now.addingTimeInterval(-Self.window), until: now,
                platform: settings.platform))
        let current = MinimumVersionController.servedVersion(
            settings.parameter, in: template.compiled, platform: settings.platform, newest: fleet.newest)
        let ceiling = settings.neverAbove.map { parameter in
            (
                parameter: parameter,
                value: MinimumVersionController.servedVersion(
                    parameter, in: template.compiled, platform: settings.platform, newest: fleet.newest)
            )
        }
        let limits = MinimumVersionRaise.Limits(
            maxBlockedShare: settings.maxBlockedShare, minActiveInstances: settings.minActiveInstances,
            neverAbove: ceiling, keepBehindLatest: settings.keepBehindLatest)
        let (decision, recommended) = MinimumVersionRaise.decide(
            fleet: fleet, current: current, slot: target.value, limits: limits)
        let recommendation = recommended?.version
        switch decision {
        case .notEnoughData(let reason): return try await finish(claim, .notEnoughData, recommendation, reason)
        case .unchanged(let reason): return try await finish(claim, .unchanged, recommendation, reason)
        case .limited(let reason): return try await finish(claim, .limited, recommendation, reason)
        case .raise(let raise):
            if let open = try await openRequest(claim) {
                return try await finish(
                    claim, .proposed, recommendation,
                    "\(ChangeRequest.name(open)), which this policy opened, is still open; no other is opened")
            }
            let figures = Figures(
                settings: settings, from: current ?? target.value, raise: raise, fleet: fleet)
            var raised = template.template
            target.set(raise.version, in: &raised)
            let edited = raised
            let prepared = try await heavyWork.run(size: latest.templateJSON.utf8.count) {
                try PreparedTemplate(edited, extraIssues: TemplateHTTP.textIssues)
            }
            return try await deliver(claim, prepared, base: latest.versionNumber, figures: figures)
        }
    }

    /// Publishes the raise when the policy's action and the project allow it, else proposes it.
    private func deliver(
        _ claim: MinimumVersionPolicyClaim, _ prepared: PreparedTemplate, base: Int64, figures: Figures
    ) async throws -> MinimumVersionPolicyOutcome {
        let project = claim.policy.project
        let requireApproval = try await projects.get(project)?.requireApproval ?? false
        if claim.policy.settings.action == .publish, !requireApproval {
            let outcome = MinimumVersionPolicyOutcome(
                result: .raised, recommendation: figures.raise.version, detail: figures.sentence)
            let request = PublishRequest(
                templateJSON: prepared.storedJSON, expectedVersion: base, updateType: .incrementalUpdate,
                updateUser: Self.actor.updateUser, updateOrigin: .versionPolicy, description: figures.description)
            do {
                let stored = try await policies.raise(
                    claim, request, outcome, figures: figures.audit, actor: Self.actor)
                await publishing.announce(stored, prepared: prepared)
                return outcome
            } catch TemplateStoreError.approvalRequired {
                // Approval was turned on since: the project's rule wins, and the raise is proposed instead.
            }
        }
        let outcome = MinimumVersionPolicyOutcome(
            result: .proposed, recommendation: figures.raise.version, detail: figures.sentence)
        let proposal = ChangeRequestProposal(
            templateJSON: prepared.storedJSON, description: figures.description, baseVersion: base)
        _ = try await policies.propose(claim, proposal, outcome, figures: figures.audit, actor: Self.actor)
        return outcome
    }

    /// The change request this policy opened that nobody has decided on yet.
    private func openRequest(_ claim: MinimumVersionPolicyClaim) async throws -> Int64? {
        guard let id = claim.policy.status.openRequestId,
            let request = try await changeRequests.get(claim.policy.project, id), !request.state.isFinal
        else { return nil }
        return id
    }

    private func finish(
        _ claim: MinimumVersionPolicyClaim, _ result: MinimumVersionPolicyStatus.Result, _ recommendation: String?,
        _ detail: String
    ) async throws -> MinimumVersionPolicyOutcome {
        let outcome = MinimumVersionPolicyOutcome(result: result, recommendation: recommendation, detail: detail)
        try await policies.finish(claim, outcome)
        return outcome
    }
}
