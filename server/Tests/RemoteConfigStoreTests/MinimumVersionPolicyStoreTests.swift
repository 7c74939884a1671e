import Foundation
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigStore

/// Minimum-version policies and their claims: exactly one check holds a policy at a time, and a check that lost
/// its claim raises nothing.
@Suite struct MinimumVersionPolicyStoreTests {
    static let settings = MinimumVersionPolicySettings(
        enabled: true, platform: "IOS", parameter: "min_supported_version", condition: nil, maxBlockedShare: 0.01,
        minActiveInstances: 1000, neverAbove: "current_version", keepBehindLatest: 1, checkIntervalSeconds: 3600,
        action: .publish)

    static let outcome = MinimumVersionPolicyOutcome(result: .raised, recommendation: "2.0.0", detail: "figures")

    /// A database with `shop-app`, one published version and an enabled policy that is due.
    static func withPolicy(
        _ body: @Sendable @escaping (Database, MinimumVersionPolicyStore) async throws -> Void
    ) async throws {
        try await withRunningDatabase(maximumConnections: 12) { database in
            _ = try await ProjectStore(database: database).create(
                projectId: "shop-app", displayName: "Shop", actor: StoreTests.actor)
            _ = try await StoreTests.publish(TemplateStore(database: database), "shop-app")
            let policies = MinimumVersionPolicyStore(database: database)
            let saved = try await policies.save("shop-app", settings, actor: StoreTests.actor)
            #expect(saved.settings == settings)
            try await body(database, policies)
        }
    }

    @Test func manyCheckersAtOnceClaimADuePolicyOnce() async throws {
        try await Self.withPolicy { _, policies in
            for _ in 0..<5 {
                let claims = try await withThrowingTaskGroup(of: MinimumVersionPolicyClaim?.self) { group in
                    for _ in 0..<10 { group.addTask { try await policies.claimDue(lease: .seconds(60)) } }
                    return try await group.reduce(into: []) { $0.append($1) }.compactMap { $0 }
                }
                #expect(claims.count == 1)
                // Held: nobody else claims it, however often they ask.
                #expect(try await policies.claimDue(lease: .seconds(60)) == nil)
                let done = try await policies.finish(try #require(claims.first), Self.outcome)
                #expect(done.status.lastResult == .raised && done.status.lastRecommendation == "2.0.0")
                #expect(done.status.nextCheckTime.timeIntervalSinceNow > 3000)
                #expect(try await policies.claimDue(lease: .seconds(60)) == nil, "not due for an hour")
                // Saving the settings makes it due at once, and keeps the last check.
                let saved = try await policies.save("shop-app", Self.settings, actor: StoreTests.actor)
                #expect(saved.status.lastResult == .raised)
            }
        }
    }

    @Test func aCheckWhoseLeaseRanOutRaisesNothing() async throws {
        try await Self.withPolicy { database, policies in
            let stale = try #require(try await policies.claimDue(lease: .milliseconds(1)))
            try await Task.sleep(for: .milliseconds(20))
            // The lease ran out: another check takes the policy over.
            let current = try #require(try await policies.claimDue(lease: .seconds(60)))
            let request = PublishRequest(
                templateJSON: StoreTests.template, expectedVersion: 1, updateType: .incrementalUpdate,
                updateUser: "minimum version policy", updateOrigin: .versionPolicy)
            await #expect(throws: LeaseLost()) {
                _ = try await policies.raise(stale, request, Self.outcome, figures: [:], actor: StoreTests.actor)
            }
            let proposal = ChangeRequestProposal(templateJSON: StoreTests.template, description: "raise")
            await #expect(throws: LeaseLost()) {
                _ = try await policies.propose(stale, proposal, Self.outcome, figures: [:], actor: StoreTests.actor)
            }
            await #expect(throws: LeaseLost()) { try await policies.finish(stale, Self.outcome) }
            let templates = TemplateStore(database: database)
            #expect(try await templates.latest("shop-app")?.versionNumber == 1)
            let changeRequests = ChangeRequestStore(database: database)
            #expect(try await changeRequests.list("shop-app", ChangeRequestQuery(limit: 10)).items.isEmpty)

            let published = try await policies.raise(
                current, request, Self.outcome, figures: ["to": "2.0.0"], actor: StoreTests.actor)
            #expect(published.versionNumber == 2 && published.updateOrigin == .versionPolicy)
            let after = try #require(try await policies.get("shop-app"))
            #expect(after.status.lastResult == .raised && after.status.lastDetail == "figures")
            #expect(try await policies.claimDue(lease: .seconds(60)) == nil)
        }
    }

    @Test func aDisabledPolicyIsNeverDue() async throws {
        try await Self.withPolicy { _, policies in
            var off = Self.settings
            off.enabled = false
            _ = try await policies.save("shop-app", off, actor: StoreTests.actor)
            #expect(try await policies.claimDue(lease: .seconds(60)) == nil)
        }
    }

    @Test func aStaleRevisionIsRefused() async throws {
        try await Self.withPolicy { _, policies in
            let current = try #require(try await policies.get("shop-app"))
            await #expect(throws: StaleRevision("minimum version policy", current: current.revision)) {
                _ = try await policies.save(
                    "shop-app", Self.settings, expectedRevision: current.revision - 1, actor: StoreTests.actor)
            }
            let saved = try await policies.save(
                "shop-app", Self.settings, expectedRevision: current.revision, actor: StoreTests.actor)
            #expect(saved.revision > current.revision)
        }
    }
}
