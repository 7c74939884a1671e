import Foundation
import PostgresNIO
import RemoteConfigAPI
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

@Suite struct APIKeysTests {
    @Test func createShowsTheSecretOnceAndListHidesIt() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let created = try await app.admin.createKey(role: "client", project: "shop-app", name: "iOS app")
            let secret = try #require(created.key)
            #expect(secret.hasPrefix("rc_client_"))
            #expect(secret.count >= "rc_client_".count + 22)  // ≥ 128 bits in base62
            #expect(created.role == "client")
            #expect(created.project == "shop-app")
            #expect(created.name.hasPrefix("apiKeys/"))

            let list = try await app.call(.get, "/v1/apiKeys")
            #expect(list.status == 200)
            #expect(!list.text.contains(secret))
            let keys = try list.decode(APIKeyList.self).apiKeys
            let listed = try #require(keys.first { $0.name == created.name })
            #expect(listed.displayName == "iOS app")
            #expect(secret.hasPrefix(listed.keyPrefix))
            #expect(listed.key == nil)
        }
    }

    @Test(arguments: ["admin", "editor", "viewer", "client"])
    func everyRoleHasARecognisablePrefix(_ role: String) async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: role, project: "shop-app")
            #expect(key.secret.hasPrefix("rc_\(role)_"))
        }
    }

    @Test func secretsAreStoredOnlyAsSHA256() async throws {
        try await TestApp.run { app in
            let key = try await app.createKey(role: "viewer")
            let rows = try await app.database.run { client in
                var found: [(String, Data)] = []
                let rows = try await client.query("SELECT key_prefix, key_hash FROM api_keys WHERE key_id = \(key.id)")
                for try await row in rows.decode((String, Data).self) { found.append(row) }
                return found.map { "\($0.0)|\($0.1.base64EncodedString())" }
            }
            #expect(rows.count == 1)
            #expect(
                rows[0] == "\(KeySecret.prefix(of: key.secret))|\(KeySecret.hash(key.secret).base64EncodedString())")
            #expect(!rows[0].contains(key.secret))
        }
    }

    @Test func secretsAreRandom() {
        let secrets = Set((0..<1000).map { _ in KeySecret.generate(role: .admin) })
        #expect(secrets.count == 1000)
    }

    @Test func revokedKeyIsRefusedAtOnce() async throws {
        try await TestApp.run { app in
            let key = try await app.createKey(role: "viewer")
            #expect(try await app.call(.get, "/v1/projects", token: key.secret).status == 200)
            try await app.admin.revokeKey(key.id)
            let after = try await app.call(.get, "/v1/projects", token: key.secret)
            #expect(after.status == 401)
            #expect(after.errorStatus == "UNAUTHENTICATED")
            let list = try await app.call(.get, "/v1/apiKeys")
            #expect(!list.text.contains(key.id))
            #expect(try await app.call(.delete, "/v1/apiKeys/\(key.id)").status == 404)
        }
    }

    @Test func badKeyRequestsNameTheField() async throws {
        try await TestApp.run { app in
            let badRole = try await app.call(.post, "/v1/apiKeys", json: ["role": "owner"])
            #expect(badRole.status == 400)
            #expect(badRole.errorFields == ["role"])
            let clientWithoutProject = try await app.call(.post, "/v1/apiKeys", json: ["role": "client"])
            #expect(clientWithoutProject.status == 400)
            #expect(clientWithoutProject.errorFields == ["project"])
            let unknownProject = try await app.call(
                .post, "/v1/apiKeys", json: ["role": "client", "project": "nope-app"])
            #expect(unknownProject.status == 404)
            #expect(unknownProject.errorFields == ["project"])
            #expect(try await app.admin.listKeys().apiKeys.count == 1)  // only the bootstrap admin
        }
    }

    @Test func aProjectAdminManagesOnlyItsProjectsKeys() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.createProject("other-app")
            let admin = try await app.createKey(role: "admin", project: "shop-app")
            let foreign = try await app.createKey(role: "viewer", project: "other-app")
            let own = try await app.call(
                .post, "/v1/apiKeys", token: admin.secret, json: ["role": "client", "project": "shop-app"])
            #expect(own.status == 201)
            let other = try await app.call(
                .post, "/v1/apiKeys", token: admin.secret, json: ["role": "client", "project": "other-app"])
            #expect(other.status == 403)
            let global = try await app.call(.post, "/v1/apiKeys", token: admin.secret, json: ["role": "viewer"])
            #expect(global.status == 403)
            let keys = try await app.admin.with(token: admin.secret).listKeys().apiKeys
            #expect(!keys.isEmpty && keys.allSatisfy { $0.project == "shop-app" })
            #expect(try await app.call(.delete, "/v1/apiKeys/\(foreign.id)", token: admin.secret).status == 404)
        }
    }
}
