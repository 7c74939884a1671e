import Foundation
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigStore

/// Store links and their claims: exactly one sync holds a link at a time, and a sync that lost its claim
/// writes nothing.
@Suite struct StoreLinkStoreTests {
    static let settings = StoreLinkSettings(
        enabled: true, appStoreId: "123456789", country: "jp", intervalSeconds: 3600,
        parameters: [StoreLinkMapping(parameter: "current_version", field: "version")], autoApprove: false)

    /// A database with `shop-app`, one published version and an enabled link that is due.
    static func linked(_ body: @Sendable @escaping (Database, StoreLinkStore) async throws -> Void) async throws {
        try await withRunningDatabase(maximumConnections: 12) { database in
            _ = try await ProjectStore(database: database).create(
                projectId: "shop-app", displayName: "Shop", actor: StoreTests.actor)
            _ = try await StoreTests.publish(TemplateStore(database: database), "shop-app")
            let links = StoreLinkStore(database: database)
            _ = try await links.save("shop-app", settings, actor: StoreTests.actor)
            try await body(database, links)
        }
    }

    @Test func manySeekersAtOnceClaimADueLinkOnce() async throws {
        try await Self.linked { _, links in
            for _ in 0..<5 {
                let claims = try await withThrowingTaskGroup(of: StoreLinkClaim?.self) { group in
                    for _ in 0..<10 { group.addTask { try await links.claimDue(lease: .seconds(60)) } }
                    return try await group.reduce(into: []) { $0.append($1) }.compactMap { $0 }
                }
                #expect(claims.count == 1)
                // Nor does asking for it by name take it from the holder.
                #expect(try await links.claim("shop-app", lease: .seconds(60)) == nil)
                // Done: due again in an hour, so nobody claims it now.
                let done = try await links.succeeded(try #require(claims.first), storeVersion: "2.4.0")
                #expect(done.status.lastStoreVersion == "2.4.0")
                #expect(done.status.nextSyncTime.timeIntervalSinceNow > 3000)
                #expect(try await links.claimDue(lease: .seconds(60)) == nil)
                // Saving the settings makes it due at once.
                _ = try await links.save("shop-app", Self.settings, actor: StoreTests.actor)
            }
        }
    }

    @Test func aSyncWhoseLeaseRanOutWritesNothing() async throws {
        try await Self.linked { database, links in
            let stale = try #require(try await links.claimDue(lease: .milliseconds(1)))
            try await Task.sleep(for: .milliseconds(20))
            // The lease ran out: another sync takes the link over.
            let current = try #require(try await links.claim("shop-app", lease: .seconds(60)))
            let request = PublishRequest(
                templateJSON: StoreTests.template, expectedVersion: 1, updateType: .incrementalUpdate,
                updateUser: "store sync", updateOrigin: .storeSync)
            let fences = SyncFences(database: database)
            await #expect(throws: StoreLinkError.claimLost) {
                _ = try await fences.publish(stale.fence, request, actor: StoreTests.actor)
            }
            await #expect(throws: StoreLinkError.claimLost) {
                _ = try await links.failed(stale, error: "late", retryAfter: .seconds(60), actor: StoreTests.actor)
            }
            let templates = TemplateStore(database: database)
            #expect(try await templates.latest("shop-app")?.versionNumber == 1)
            let published = try await fences.publish(current.fence, request, actor: StoreTests.actor)
            #expect(published.versionNumber == 2 && published.updateOrigin.rawValue == "STORE_SYNC")
            let failed = try await links.failed(
                current, error: "store down", retryAfter: .seconds(120), actor: StoreTests.actor)
            #expect(failed.status.lastError == "store down" && failed.status.consecutiveFailures == 1)
            #expect(abs(failed.status.nextSyncTime.timeIntervalSinceNow - 120) < 10)
        }
    }

    @Test func aDisabledLinkIsNeverDueButCanBeSyncedByName() async throws {
        try await Self.linked { _, links in
            var off = Self.settings
            off.enabled = false
            let saved = try await links.save("shop-app", off, actor: StoreTests.actor)
            #expect(saved.settings == off)
            #expect(try await links.claimDue(lease: .seconds(60)) == nil)
            #expect(try await links.claim("shop-app", lease: .seconds(60)) != nil)
            await #expect(throws: StoreError.notFound("store link of other-app")) {
                _ = try await links.claim("other-app", lease: .seconds(60))
            }
        }
    }
}
