import Foundation
import RemoteConfigAPI
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// Store sync in the built binary: the lookup URL from the flag and from the variable, two replicas, one sync.
@Suite struct StoreSyncProcessTests {
    @Test func twoServersFollowTheStoreWithOneLookup() async throws {
        try await FakeAppStore.run { store in
            store.answer(.listing(version: "2.4.0"), delay: .milliseconds(200))
            let url = ServeCommandTests.urlText(try await TestCluster.shared.makeDatabase())
            let environment = ["RC_ADMIN_TOKEN": ReplicaTests.token, "RC_LOG_LEVEL": "warning"]
            let one = try ServerProcess(
                ["serve", "--port", "0", "--database-url", url, "--store-lookup-url", store.url],
                environment: environment)
            let two = try ServerProcess(
                ["serve", "--port", "0", "--database-url", url],
                environment: environment.merging(["RC_STORE_LOOKUP_URL": store.url]) { $1 })
            defer {
                one.signal()
                two.signal()
            }
            let bases = [
                "http://127.0.0.1:\(try await one.waitUntilListening())",
                "http://127.0.0.1:\(try await two.waitUntilListening())",
            ]
            let admin = ["Authorization": "Bearer \(ReplicaTests.token)"]
            #expect(
                try await HTTP.request(
                    "POST", bases[0] + "/v1/projects", headers: admin,
                    body: try HTTP.encoded(CreateProjectRequest(projectId: "shop-app"))
                ).status == 201)
            let published = try await HTTP.request(
                "PUT", bases[0] + "/v1/projects/shop-app/remoteConfig",
                headers: admin.merging(["If-Match": "*"]) { $1 },
                body: HTTP.json(TemplateFixtures.forceUpdateValue()))
            #expect(published.status == 200)
            let key = try await HTTP.request(
                "POST", bases[0] + "/v1/apiKeys", headers: admin,
                body: try HTTP.encoded(CreateAPIKeyRequest(displayName: "app", role: "client", project: "shop-app")))
            let secret = try #require(try key.decode(APIKey.self).key)
            // Saved on the second server, which asks the store through RC_STORE_LOOKUP_URL.
            let link = try await HTTP.request(
                "PUT", bases[1] + "/v1/projects/shop-app/storeSync", headers: admin,
                body: try HTTP.encoded(StoreSyncFixture.link(enabled: true)))
            #expect(link.status == 200, "\(String(decoding: link.body, as: UTF8.self))")
            for base in bases {
                let followed = try await ReplicaTests.within(.seconds(20)) {
                    let reply = try await HTTP.request(
                        "POST", base + "/v1/projects/shop-app/remoteConfig:fetch", headers: ["X-API-Key": secret],
                        body: HTTP.json(["appInstanceId": "i", "platform": "IOS", "appVersion": "2.0.0"]))
                    return StoreSyncFixture.strings(reply.value["entries"])["current_version"] == "2.4.0"
                }
                #expect(followed != nil, "\(base) does not serve the store's version")
            }
            #expect(store.requests.count == 1, "\(store.requests)")
            // The first server asks the store through --store-lookup-url.
            let run = try await HTTP.request("POST", bases[0] + "/v1/projects/shop-app/storeSync:run", headers: admin)
            #expect(try run.decode(RemoteConfigAPI.StoreLink.self).result == "UNCHANGED", "\(run.text)")
            #expect(store.requests.count == 2)
        }
    }

    @Test func aStoreValueWithLineBreaksCannotForgeALogLine() async throws {
        try await FakeAppStore.run { store in
            let forged = "2026-11-26T00:00:00+0000 critical remote-config : admin key rotated"
            store.answer(.listing(version: "2.4.0\r\n\(forged)\u{1B}[2J"))
            let url = ServeCommandTests.urlText(try await TestCluster.shared.makeDatabase())
            let server = try ServerProcess(
                ["serve", "--port", "0", "--database-url", url, "--store-lookup-url", store.url],
                environment: ["RC_ADMIN_TOKEN": ReplicaTests.token, "RC_LOG_LEVEL": "info"])
            defer { server.signal() }
            let base = "http://127.0.0.1:\(try await server.waitUntilListening())"
            let admin = ["Authorization": "Bearer \(ReplicaTests.token)"]
            _ = try await HTTP.request(
                "POST", base + "/v1/projects", headers: admin,
                body: try HTTP.encoded(CreateProjectRequest(projectId: "shop-app")))
            _ = try await HTTP.request(
                "PUT", base + "/v1/projects/shop-app/remoteConfig", headers: admin.merging(["If-Match": "*"]) { $1 },
                body: HTTP.json(TemplateFixtures.forceUpdateValue()))
            _ = try await HTTP.request(
                "PUT", base + "/v1/projects/shop-app/storeSync", headers: admin,
                body: try HTTP.encoded(StoreSyncFixture.link()))
            let run = try await HTTP.request("POST", base + "/v1/projects/shop-app/storeSync:run", headers: admin)
            #expect(try run.decode(RemoteConfigAPI.StoreLink.self).result == "FAILED", "\(run.text)")
            let logged = try await ReplicaTests.within(.seconds(10)) {
                server.output.contains("critical remote-config : admin key rotated")
            }
            #expect(logged != nil, "\(server.output)")
            let lines = server.output.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" }
            #expect(!lines.contains { $0.hasPrefix(forged) }, "a forged line: \(server.output)")
            #expect(!server.output.unicodeScalars.contains("\u{1B}"), "ESC reached the log")
            #expect(server.output.contains(#"2.4.0\r\n2026-11-26"#), "\(server.output)")
        }
    }
}
