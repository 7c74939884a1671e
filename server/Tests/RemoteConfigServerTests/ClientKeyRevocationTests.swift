import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// A revoked client key stays revoked in memory, whatever order reads of the key set finish in.
@Suite struct ClientKeyRevocationTests {
    @Test func aReadOfTheKeysThatStartedBeforeARevocationDoesNotBringTheKeyBack() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            // A read of the active keys, made while the key is active (as a periodic check or a NOTIFY
            // makes one) ...
            let stale = try await KeyStore(database: app.database).activeKeyHashes()
            #expect(stale.contains { $0.key.id == client.id })
            // ... finishes after the key was revoked.
            #expect(try await app.call(.delete, "/v1/apiKeys/\(client.id)").status == 200)
            app.clientKeys.apply(stale)
            #expect(try await app.clientKeys.lookup(secret: client.secret) == nil)
            let fetch = try await app.call(
                .post, "/v1/projects/shop-app/remoteConfig:fetch", token: nil, json: ["appInstanceId": "i-1"],
                headers: [.init("X-API-Key")!: client.secret])
            #expect(fetch.status == 401)
        }
    }
}

/// A key is usable on the server that created it from the moment its creation is answered.
@Suite struct ClientKeyCreationTests {
    @Test func aKeyIsKnownInMemoryAsSoonAsItsCreationIsAnswered() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            // Several in a row: the NOTIFY that also announces each key must not be what makes it known (it
            // arrives a moment later, and a stream opened before it would be refused by the event-loop front).
            for _ in 0..<5 {
                let client = try await app.createKey(role: "client", project: "shop-app")
                var memo: ClientKeys.Memo?
                guard case .known(let key) = app.clientKeys.cached(secret: client.secret, memo: &memo) else {
                    Issue.record("a key just created is not in memory")
                    return
                }
                #expect(key.id == client.id && key.project == "shop-app")
            }
        }
    }
}
