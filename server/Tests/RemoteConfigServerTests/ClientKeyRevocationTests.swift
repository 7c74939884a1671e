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
