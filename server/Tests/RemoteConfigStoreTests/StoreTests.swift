import Foundation
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigStore

/// The stores on their own, against PostgreSQL: what each promises the server, without HTTP in between.
@Suite struct StoreTests {
    static let actor = AuditActor(keyId: "k1", displayName: "tester")
    static let template = #"{"parameters": {"a": {"defaultValue": {"value": "1"}}}}"#

    static func publish(
        _ templates: TemplateStore, _ project: String, expected: Int64? = nil, json: String = template
    ) async throws -> StoredVersion {
        try await templates.publish(
            project,
            PublishRequest(
                templateJSON: json, expectedVersion: expected, updateType: .incrementalUpdate, updateUser: "tester"),
            actor: actor)
    }

    @Test func projectsAreCreatedOnceAndRead() async throws {
        try await withRunningDatabase { database in
            let projects = ProjectStore(database: database)
            let created = try await projects.create(projectId: "shop-app", displayName: "Shop", actor: Self.actor)
            #expect(created.projectId == "shop-app" && created.displayName == "Shop")
            await #expect {
                _ = try await projects.create(projectId: "shop-app", displayName: "Again", actor: Self.actor)
            } throws: { error in
                guard case StoreError.alreadyExists = error else { return false }
                return true
            }
            #expect(try await projects.get("shop-app") == created)
            #expect(try await projects.get("other-app") == nil)
            _ = try await projects.create(projectId: "other-app", displayName: "Other", actor: Self.actor)
            #expect(try await projects.list().map(\.projectId).sorted() == ["other-app", "shop-app"])
            #expect(try await projects.list(only: "shop-app").map(\.projectId) == ["shop-app"])
        }
    }

    @Test func versionsAreContiguousAndAStaleExpectationChangesNothing() async throws {
        try await withRunningDatabase { database in
            _ = try await ProjectStore(database: database).create(
                projectId: "shop-app", displayName: "Shop", actor: Self.actor)
            let templates = TemplateStore(database: database)
            #expect(try await templates.latest("shop-app") == nil)
            let first = try await Self.publish(templates, "shop-app", expected: 0)
            let second = try await Self.publish(templates, "shop-app", expected: 1)
            #expect([first.versionNumber, second.versionNumber] == [1, 2])
            await #expect(throws: TemplateStoreError.stale(current: 2)) {
                _ = try await Self.publish(templates, "shop-app", expected: 1)
            }
            let third = try await Self.publish(templates, "shop-app")  // nil forces
            #expect(third.versionNumber == 3)
            #expect(try await templates.latest("shop-app")?.versionNumber == 3)
            #expect(try await templates.version("shop-app", 2) == second)
            #expect(try await templates.version("shop-app", 9) == nil)
            #expect(try await templates.latestVersions() == ["shop-app": 3])

            var query = VersionQuery()
            query.pageSize = 2
            #expect(try await templates.list("shop-app", query).items.map(\.versionNumber).prefix(2) == [3, 2])
            query.before = 2
            #expect(try await templates.list("shop-app", query).items.map(\.versionNumber) == [1])

            // Every publish is audited with the acting key, in the same transaction.
            let events = try await AuditLog.list("shop-app", before: nil, limit: 10, database: database).items
            #expect(events.filter { $0.action == "template.publish" }.count == 3)
            #expect(events.first?.actorKey == "apiKeys/k1")
        }
    }

    @Test func draftsFollowTheirRevisionAndPublishOnce() async throws {
        try await withRunningDatabase { database in
            _ = try await ProjectStore(database: database).create(
                projectId: "shop-app", displayName: "Shop", actor: Self.actor)
            let templates = TemplateStore(database: database)
            let drafts = DraftStore(database: database)
            _ = try await Self.publish(templates, "shop-app")
            #expect(try await drafts.get("shop-app") == nil)
            let saved = try await drafts.save(
                "shop-app", templateJSON: Self.template, expectedRevision: DraftStore.noDraft, baseVersion: 1,
                actor: Self.actor)
            #expect(saved.baseVersion == 1)
            await #expect(throws: TemplateStoreError.staleDraft(current: saved.revision)) {
                _ = try await drafts.save(
                    "shop-app", templateJSON: Self.template, expectedRevision: DraftStore.noDraft, baseVersion: 1,
                    actor: Self.actor)
            }
            let resaved = try await drafts.save(
                "shop-app", templateJSON: Self.template, expectedRevision: saved.revision, baseVersion: 1,
                actor: Self.actor)
            #expect(resaved.revision != saved.revision && resaved.baseVersion == 1)

            // Another version since the draft's base: refused unless forced.
            _ = try await Self.publish(templates, "shop-app")
            await #expect(throws: TemplateStoreError.baseChanged(base: 1, latest: 2)) {
                _ = try await drafts.publish(
                    "shop-app", revision: resaved.revision, templateJSON: Self.template, force: false, description: "",
                    actor: Self.actor)
            }
            // The revision the caller validated must still be the draft's.
            await #expect(throws: TemplateStoreError.staleDraft(current: resaved.revision)) {
                _ = try await drafts.publish(
                    "shop-app", revision: saved.revision, templateJSON: Self.template, force: true, description: "",
                    actor: Self.actor)
            }
            let published = try await drafts.publish(
                "shop-app", revision: resaved.revision, templateJSON: Self.template, force: true,
                description: "from the draft", actor: Self.actor)
            #expect(published.versionNumber == 3 && published.updateType.rawValue == "FORCED_UPDATE")
            #expect(try await drafts.get("shop-app") == nil)
            await #expect {
                try await drafts.delete("shop-app", actor: Self.actor)
            } throws: { error in
                guard case StoreError.notFound = error else { return false }
                return true
            }
        }
    }

    @Test func keysAuthenticateByTheirSecretUntilRevoked() async throws {
        try await withRunningDatabase { database in
            _ = try await ProjectStore(database: database).create(
                projectId: "shop-app", displayName: "Shop", actor: Self.actor)
            let keys = KeyStore(database: database)
            let (key, secret) = try await keys.create(
                displayName: "iOS app", role: .client, project: "shop-app", actor: Self.actor)
            #expect(key.role == .client && key.project == "shop-app")
            #expect(secret.hasPrefix(key.keyPrefix))
            #expect(try await keys.authenticate(secret: secret) == key)
            #expect(try await keys.authenticate(secret: secret + "x") == nil)
            #expect(try await keys.list(project: "shop-app").map(\.id) == [key.id])
            // Only hashes are stored: the secret appears nowhere in the table.
            let stored = try await database.run { client in
                var texts: [String] = []
                for try await text in try await client.query("SELECT row_to_json(k)::text FROM api_keys k")
                    .decode(String.self)
                {
                    texts.append(text)
                }
                return texts
            }
            #expect(!stored.contains { $0.contains(secret) })
            try await keys.revoke(id: key.id, actor: Self.actor)
            #expect(try await keys.authenticate(secret: secret) == nil)
            #expect(try await keys.activeKeyHashes().allSatisfy { $0.key.id != key.id })
        }
    }
}
