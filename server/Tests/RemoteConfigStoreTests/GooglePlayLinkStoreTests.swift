import Foundation
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigStore

/// Google Play links and their claims: the same claim as store links', so exactly one sync holds a link at a
/// time, a sync that lost its claim writes nothing, and the key comes back only to the holder, opened.
@Suite struct GooglePlayLinkStoreTests {
    static let settings = GooglePlayLinkSettings(
        enabled: true, packageName: "com.example.app", track: "production", intervalSeconds: 3600,
        parameters: [StoreLinkMapping(parameter: "a", field: "versionCode")], condition: nil,
        stagedRollouts: .completedOnly, autoApprove: false)
    static let key = GooglePlayServiceAccountKey(
        account: GooglePlayServiceAccount(clientEmail: "rc@p.iam.gserviceaccount.com", privateKeyId: "k1"),
        privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nnot checked by the store\n-----END PRIVATE KEY-----\n")

    @Test func aDueLinkIsClaimedOnceAndALostClaimWritesNothing() async throws {
        try await withRunningDatabase(maximumConnections: 12) { database in
            _ = try await TestSecrets.prepare(database.url)
            _ = try await ProjectStore(database: database).create(
                projectId: "shop-app", displayName: "Shop", actor: StoreTests.actor)
            _ = try await StoreTests.publish(TemplateStore(database: database), "shop-app")
            let links = GooglePlayLinkStore(database: database, sealer: TestSecrets.sealer)
            _ = try await links.save("shop-app", Self.settings, key: Self.key, actor: StoreTests.actor)
            #expect(!Self.key.description.contains("not checked"))

            let stale = try #require(try await links.claimDue(lease: .milliseconds(1)))
            #expect(try links.key(of: stale) == Self.key)
            try await Task.sleep(for: .milliseconds(20))
            // The lease ran out: another sync takes the link over, and the first one's writes are refused.
            let current = try #require(try await links.claim("shop-app", lease: .seconds(60)))
            let request = PublishRequest(
                templateJSON: StoreTests.template, expectedVersion: 1, updateType: .incrementalUpdate,
                updateUser: "store sync", updateOrigin: .storeSync)
            let fences = SyncFences(database: database)
            await #expect(throws: StoreLinkError.claimLost) {
                _ = try await fences.publish(stale.fence, request, actor: StoreTests.actor)
            }
            await #expect(throws: StoreLinkError.claimLost) {
                _ = try await links.succeeded(stale, release: nil, note: nil)
            }
            #expect(try await fences.publish(current.fence, request, actor: StoreTests.actor).versionNumber == 2)
            let release = GooglePlayReleaseSummary(
                name: "2.4.0", versionCode: "241", status: "completed", userFraction: nil)
            let done = try await links.succeeded(current, release: release, note: nil)
            #expect(done.status.lastRelease == release && done.status.consecutiveFailures == 0)
            #expect(abs(done.status.nextSyncTime.timeIntervalSinceNow - 3600) < 60)
            #expect(try await links.claimDue(lease: .seconds(60)) == nil)
            // Asked for by name by many at once, one holds it.
            let claims = try await withThrowingTaskGroup(of: GooglePlayLinkClaim?.self) { group in
                for _ in 0..<10 { group.addTask { try await links.claim("shop-app", lease: .seconds(60)) } }
                return try await group.reduce(into: []) { $0.append($1) }.compactMap { $0 }
            }
            #expect(claims.count == 1)
            _ = try await links.succeeded(try #require(claims.first), release: nil, note: nil)

            // Saved again without a key, the stored one is kept; a link without one cannot be made keyless.
            _ = try await links.save("shop-app", Self.settings, key: nil, actor: StoreTests.actor)
            let again = try #require(try await links.claim("shop-app", lease: .seconds(60)))
            #expect(try links.key(of: again) == Self.key)
            _ = try await ProjectStore(database: database).create(
                projectId: "other-app", displayName: "Other", actor: StoreTests.actor)
            await #expect(throws: StoreError.self) {
                _ = try await links.save("other-app", Self.settings, key: nil, actor: StoreTests.actor)
            }
        }
    }
}
