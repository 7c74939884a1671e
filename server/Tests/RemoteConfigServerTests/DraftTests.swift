import Foundation
import HTTPTypes
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// Drafts: created from the published template, replaced with If-Match, discarded, published.
@Suite struct DraftTests {
    @Test func aDraftStartsAsACopyOfThePublishedTemplate() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let draft = try await app.call(.get, "/v1/projects/shop-app/remoteConfig/draft")
            #expect(draft.status == 200)
            #expect(draft.value["baseVersionNumber"]?.stringValue == "1")
            #expect(draft.value["parameters"]?["current_version"] != nil)
            #expect(draft.headers[.eTag]?.hasPrefix("\"draft-shop-app-") == true)
            let again = try await app.call(.get, "/v1/projects/shop-app/remoteConfig/draft")
            #expect(again.headers[.eTag] == draft.headers[.eTag])
        }
    }

    @Test func saveNeedsTheCurrentETagAndABadDraftLeavesTheSavedOne() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let draft = try await app.call(.get, "/v1/projects/shop-app/remoteConfig/draft")
            let etag = try #require(draft.headers[.eTag])
            let path = "/v1/projects/shop-app/remoteConfig/draft"
            let missing = try await app.call(.put, path, json: TemplateFixtures.forceUpdateValue())
            #expect(missing.status == 428)
            let saved = try await app.call(
                .put, path, json: TemplateFixtures.forceUpdateValue(), headers: [.ifMatch: etag])
            #expect(saved.status == 200)
            let newETag = try #require(saved.headers[.eTag])
            #expect(newETag != etag)
            let stale = try await app.call(
                .put, path, json: TemplateFixtures.forceUpdateValue(currentVersion: "9.9.9"), headers: [.ifMatch: etag])
            #expect(stale.status == 412)
            var bad = TemplateFixtures.forceUpdateValue(currentVersion: "7.7.7").objectValue ?? [:]
            bad["parameters"] = ["flag": ["defaultValue": ["value": "maybe"], "valueType": "BOOLEAN"]]
            let invalid = try await app.call(.put, path, json: .object(bad), headers: [.ifMatch: newETag])
            #expect(invalid.status == 400)
            let current = try await app.call(.get, path)
            #expect(current.headers[.eTag] == newETag)
            #expect(current.text.contains("2.3.0") && !current.text.contains("maybe"))
        }
    }

    @Test func publishingADraftMakesTheNextVersionAndRemovesIt() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let path = "/v1/projects/shop-app/remoteConfig/draft"
            let saved = try await app.call(
                .put, path, json: TemplateFixtures.forceUpdateValue(), headers: [.ifMatch: "*"])
            let etag = try #require(saved.headers[.eTag])
            let published = try await app.call(
                .post, path + ":publish", json: ["description": "raise the minimum"], headers: [.ifMatch: etag])
            #expect(published.status == 200, "\(published.text)")
            let version = published.value["version"]
            #expect(version?["versionNumber"]?.stringValue == "1")
            #expect(version?["description"]?.stringValue == "raise the minimum")
            #expect(published.value["baseVersionNumber"] == nil)
            #expect(published.headers[.eTag] == "\"etag-shop-app-1\"")
            let again = try await app.call(.post, path + ":publish", json: [:], headers: [.ifMatch: etag])
            #expect(again.status == 404)
            let fresh = try await app.call(.get, path)
            #expect(fresh.value["baseVersionNumber"]?.stringValue == "1")
        }
    }

    @Test func aDraftWhoseBaseIsOutdatedIsAbortedUnlessForced() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let path = "/v1/projects/shop-app/remoteConfig/draft"
            let draft = try await app.call(.get, path)
            let saved = try await app.call(
                .put, path, json: TemplateFixtures.forceUpdateValue(currentVersion: "2.4.0"),
                headers: [.ifMatch: try #require(draft.headers[.eTag])])
            let etag = try #require(saved.headers[.eTag])
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "2.5.0"))
            let aborted = try await app.call(.post, path + ":publish", json: [:], headers: [.ifMatch: etag])
            #expect(aborted.status == 409)
            #expect(aborted.errorStatus == "ABORTED")
            let forced = try await app.call(.post, path + ":publish?force=true", json: [:], headers: [.ifMatch: etag])
            #expect(forced.status == 200)
            #expect(forced.value["version"]?["versionNumber"]?.stringValue == "3")
        }
    }

    /// A read writes nothing: with no draft stored, a viewer's GET answers a copy of the published template,
    /// and nothing is stored or audited.
    @Test func readingWithoutADraftStoresNothing() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let viewer = try await app.createKey(role: "viewer", project: "shop-app")
            let path = "/v1/projects/shop-app/remoteConfig/draft"
            let read = try await app.call(.get, path, token: viewer.secret)
            #expect(read.status == 200)
            #expect(read.value["baseVersionNumber"]?.stringValue == "1")
            #expect(read.text.contains("2.3.0"))
            let etag = try #require(read.headers[.eTag])
            #expect(try await app.call(.get, path, token: viewer.secret).headers[.eTag] == etag)
            #expect(try await app.call(.delete, path).status == 404, "no draft was stored")
            let audit = try await app.call(.get, "/v1/projects/shop-app/auditLog")
            #expect(!audit.text.contains("draft."), "nothing was audited: \(audit.text)")
            // The copy's ETag saves a first draft once; a second save with it is stale.
            let saved = try await app.call(
                .put, path, json: TemplateFixtures.forceUpdateValue(), headers: [.ifMatch: etag])
            #expect(saved.status == 200)
            #expect(saved.headers[.eTag] != etag)
            let again = try await app.call(
                .put, path, json: TemplateFixtures.forceUpdateValue(), headers: [.ifMatch: etag])
            #expect(again.status == 412)
        }
    }

    /// A first save from a read copy keeps the base that copy had, so a publish in between is not lost.
    @Test func aFirstSaveKeepsTheBaseItWasReadFrom() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let path = "/v1/projects/shop-app/remoteConfig/draft"
            let read = try await app.call(.get, path)
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "2.5.0"))
            let saved = try await app.call(
                .put, path, json: TemplateFixtures.forceUpdateValue(currentVersion: "2.4.0"),
                headers: [.ifMatch: try #require(read.headers[.eTag])])
            #expect(saved.status == 200)
            #expect(saved.value["baseVersionNumber"]?.stringValue == "1")
            let published = try await app.call(
                .post, path + ":publish", json: [:], headers: [.ifMatch: try #require(saved.headers[.eTag])])
            #expect(published.status == 409)
            #expect(published.errorStatus == "ABORTED")
        }
    }

    @Test func discardRemovesTheDraft() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let path = "/v1/projects/shop-app/remoteConfig/draft"
            try await app.call(.put, path, json: TemplateFixtures.forceUpdateValue(), headers: [.ifMatch: "*"])
            #expect(try await app.call(.delete, path).status == 200)
            #expect(try await app.call(.delete, path).status == 404)
            let fresh = try await app.call(.get, path)
            #expect(fresh.value["parameters"] == .object([:]))
        }
    }

    @Test func draftsSurviveARestart() async throws {
        let url = try await TestClusterURL.make()
        try await TestApp.run(url: url) { app in
            try await app.createProject("shop-app")
            try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig/draft",
                json: TemplateFixtures.forceUpdateValue(currentVersion: "4.4.4"),
                headers: [.ifMatch: "*"])
        }
        try await TestApp.run(url: url) { app in
            let draft = try await app.call(.get, "/v1/projects/shop-app/remoteConfig/draft")
            #expect(draft.text.contains("4.4.4"))
        }
    }
}
