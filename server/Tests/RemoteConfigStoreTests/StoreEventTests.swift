import Logging
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigStore

/// The store's events: what one server's writes tell every server, typed, in order, after the commit.
@Suite struct StoreEventTests {
    @Test(arguments: [
        StoreEvent.published(project: "shop-app", version: 12), .keyCreated(id: "abc"), .revoked(keyID: "abc"),
        .scheduled(project: "shop-app"),
    ])
    func payloadsRoundTrip(event: StoreEvent) throws {
        #expect(StoreEvent(payload: try #require(event.payload)) == event)
    }

    @Test func unknownPayloadsAreNotEvents() {
        for payload in ["", "publish shop-app", "publish shop-app x", "rename a b", "key"] {
            #expect(StoreEvent(payload: payload) == nil, "\(payload)")
        }
    }

    @Test func writesArriveAsTypedEventsAfterTheyCommit() async throws {
        try await withRunningDatabase { database in
            let actor = AuditActor(keyId: nil, displayName: "test")
            var events = database.events(logger: Logger(label: "test")).makeAsyncIterator()
            #expect(await events.next() == .connected)
            _ = try await ProjectStore(database: database).create(
                projectId: "shop-app", displayName: "Shop", actor: actor)
            _ = try await TemplateStore(database: database).publish(
                "shop-app",
                PublishRequest(
                    templateJSON: #"{"parameters": {}}"#, expectedVersion: nil, updateType: .incrementalUpdate,
                    updateUser: "test"),
                actor: actor)
            #expect(await events.next() == .published(project: "shop-app", version: 1))
            // A refused write sends nothing: the next event is the key below, not a second publish.
            await #expect(throws: TemplateStoreError.self) {
                _ = try await TemplateStore(database: database).publish(
                    "shop-app",
                    PublishRequest(
                        templateJSON: #"{"parameters": {}}"#, expectedVersion: 0, updateType: .incrementalUpdate,
                        updateUser: "test"),
                    actor: actor)
            }
            let keys = KeyStore(database: database)
            let (key, _) = try await keys.create(displayName: "app", role: .client, project: "shop-app", actor: actor)
            #expect(await events.next() == .keyCreated(id: key.id))
            try await keys.revoke(id: key.id, actor: actor)
            #expect(await events.next() == .revoked(keyID: key.id))
        }
    }
}
