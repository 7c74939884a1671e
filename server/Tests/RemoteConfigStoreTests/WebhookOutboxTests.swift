import Foundation
import PostgresNIO
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigStore

/// The outbox in the store: deliveries exist exactly when their change commits, and claims never overlap.
@Suite struct WebhookOutboxTests {
    static let actor = AuditActor(keyId: "k1", displayName: "ci-bot")

    static func setUp(_ database: Database) async throws -> WebhookStore {
        _ = try await ProjectStore(database: database).create(projectId: "shop-app", displayName: "", actor: actor)
        _ = try await TestSecrets.prepare(database.url)
        let store = WebhookStore(database: database, sealer: TestSecrets.sealer)
        for events in [["template.published"], ["*"], ["changeRequest.opened"]] {
            _ = try await store.create(
                "shop-app",
                WebhookDraft(
                    url: "https://hooks.example.com/rc", events: events, format: "JSON",
                    description: ""), actor: actor)
        }
        return store
    }

    static func count(_ database: Database) async throws -> Int {
        try await database.run { client in
            for try await count in try await client.query("SELECT count(*)::int8 FROM webhook_deliveries").decode(
                Int64.self)
            {
                return Int(count)
            }
            return 0
        }
    }

    struct Refused: Error {}

    @Test func aPublishWhoseTransactionRollsBackLeavesNoDeliveryAndACommittedOneLeavesOnePerSubscriber()
        async throws
    {
        try await withRunningDatabase(url: try await TestCluster.shared.makeDatabase()) { database in
            let store = try await Self.setUp(database)
            let request = PublishRequest(
                templateJSON: "{}", expectedVersion: nil, updateType: .forcedUpdate,
                updateUser: "ci-bot")
            // The publish ran, then something later in the same transaction failed.
            await #expect(throws: Refused.self) {
                try await database.transaction { connection in
                    _ = try await TemplateStore.publish(
                        "shop-app", request, actor: Self.actor, on: connection, logger: database.logger)
                    throw Refused()
                }
            }
            #expect(try await Self.count(database) == 0)
            #expect(try await TemplateStore(database: database).latest("shop-app") == nil)

            _ = try await TemplateStore(database: database).publish("shop-app", request, actor: Self.actor)
            // The `template.published` and `*` webhooks, not the change-request one.
            #expect(try await Self.count(database) == 2)
            let disabled = try await store.list("shop-app")[0]
            var update = WebhookUpdate()
            update.enabled = false
            _ = try await store.update("shop-app", disabled.id, update, actor: Self.actor)
            _ = try await TemplateStore(database: database).publish("shop-app", request, actor: Self.actor)
            #expect(try await Self.count(database) == 3)
        }
    }

    @Test func claimsTakeOnlyEachWebhooksOldestDeliveryAndNeverTheSameOneTwice() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        try await withRunningDatabase(url: url) { one in
            try await withRunningDatabase(url: url) { two in
                let store = try await Self.setUp(one)
                let request = PublishRequest(
                    templateJSON: "{}", expectedVersion: nil, updateType: .forcedUpdate,
                    updateUser: "ci-bot")
                for _ in 0..<5 {
                    _ = try await TemplateStore(database: one).publish("shop-app", request, actor: Self.actor)
                }
                // Ten deliveries to two webhooks: only the head of each is due.
                let claims = try await withThrowingTaskGroup(of: [ClaimedDelivery].self) { group in
                    for index in 0..<6 {
                        let claimer = WebhookStore(database: index % 2 == 0 ? one : two, sealer: TestSecrets.sealer)
                        group.addTask { try await claimer.claim(limit: 10, lease: .seconds(30)) }
                    }
                    return try await group.reduce([], +)
                }
                #expect(claims.count == 2)
                #expect(Set(claims.map(\.webhook.id)).count == 2)
                let firstVersion = claims.map { $0.dataJSON.contains("\"versionNumber\":\"1\"") }
                #expect(firstVersion == [true, true])
                // Leased: nothing more is due until they are recorded.
                #expect(try await store.claim(limit: 10, lease: .seconds(30)).isEmpty)
                for claim in claims {
                    try await store.record(
                        claim, DeliveryOutcome(status: 204, error: nil, delivered: true), retryAfter: .seconds(10),
                        giveUpAfter: .seconds(86_400))
                }
                let next = try await store.claim(limit: 10, lease: .seconds(30))
                #expect(next.map { $0.dataJSON.contains("\"versionNumber\":\"2\"") } == [true, true])
                // A failure waits its backoff; past the give-up window it is FAILED.
                try await store.record(
                    next[0], DeliveryOutcome(status: 500, error: "HTTP 500", delivered: false),
                    retryAfter: .seconds(10), giveUpAfter: .seconds(86_400))
                try await store.record(
                    next[1], DeliveryOutcome(status: nil, error: "refused", delivered: false),
                    retryAfter: .seconds(3600), giveUpAfter: .seconds(60))
                var states: [WebhookDelivery?] = []
                for claim in next {
                    let found = try await store.deliveries("shop-app", claim.webhook.id, before: nil, limit: 10).items
                    states.append(found.first { $0.id == claim.id })
                }
                #expect(states[0]?.state == .pending)
                #expect(states[0]?.attempts == 1)
                #expect(states[0]?.lastStatus == 500)
                #expect((states[0]?.nextAttemptTime ?? .distantPast) > Date() + 5)
                #expect(states[1]?.state == .failed)
                #expect(states[1]?.lastError == "refused")
                #expect(try await store.claim(limit: 10, lease: .seconds(30)).count == 1, "the FAILED one's next")
            }
        }
    }
}
