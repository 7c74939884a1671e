import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// `remoteConfig:promote`: staging's published version into production, three-way against the version promoted
/// last, through production's own rules; a hotfix in production is kept, a conflict is refused with the list.
@Suite struct PromotionTests {
    static let path = "/v1/projects/shop-app/remoteConfig:promote"

    /// A template: the force-update switch and the minimum for iOS apps, and a per-environment URL.
    static func template(
        force: Bool = false, minimum: String = "1.0.0", url: String, extra: Bool = false,
        old: String = "device.os == 'ios' && app.version.<(['2.0.0'])"
    ) -> JSONValue {
        var parameters: [String: JSONValue] = [
            "require_force_update": [
                "defaultValue": ["value": "false"], "valueType": "BOOLEAN",
                "conditionalValues": ["ios_old": ["value": .string(String(force))]],
            ],
            "min_supported_version": ["defaultValue": ["value": .string(minimum)], "valueType": "STRING"],
            "api_base_url": ["defaultValue": ["value": .string(url)], "valueType": "STRING"],
        ]
        if extra { parameters["new_banner"] = ["defaultValue": ["value": "on"], "valueType": "STRING"] }
        return [
            "conditions": [["name": "ios_old", "expression": .string(old)]],
            "parameters": .object(
                JSONObject(parameters.sorted { $0.key < $1.key }.map { .init(key: $0.key, value: $0.value) })),
        ]
    }

    /// Production `shop-app` and `shop-app-staging` that promotes to it, its `api_base_url` local; both published.
    static func setUp(_ app: TestApp.Session) async throws {
        try await app.createProject("shop-app")
        try await app.createProject("shop-app-staging")
        let linked = try await app.call(
            .patch, "/v1/projects/shop-app-staging",
            json: ["promotesTo": "shop-app", "localParameters": ["api_base_url"], "environmentName": "staging"])
        try SetupFailure.unless(linked.status == 200, linked.text)
        try SetupFailure.unless(
            try await app.publish("shop-app", template(url: "https://api.example.com")).status == 200, "prod")
        try SetupFailure.unless(
            try await app.publish("shop-app-staging", template(url: "https://staging.example.com", extra: true))
                .status == 200, "staging")
    }

    static func statuses(_ reply: TestApp.Reply) -> [String: String] {
        var result: [String: String] = [:]
        for entry in reply.value["parameters"]?.arrayValue ?? [] {
            if let key = entry["key"]?.stringValue { result[key] = entry["status"]?.stringValue }
        }
        return result
    }

    static func value(_ app: TestApp.Session, _ project: String, _ key: String) async throws -> String? {
        try await app.call(.get, "/v1/projects/\(project)/remoteConfig").value["parameters"]?[key]?["defaultValue"]?[
            "value"]?.stringValue
    }

    static func promote(_ app: TestApp.Session, _ body: JSONValue = [:], ifMatch: String = "*") async throws
        -> TestApp.Reply
    {
        try await app.call(.post, path, json: body, headers: [.ifMatch: ifMatch])
    }

    @Test func aPromotionPublishesWhatChangedKeepsAHotfixAndRefusesAConflict() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            try await Self.setUp(app)
            // No base yet: every difference is the source's; the local URL stays production's.
            let first = try await Self.promote(app)
            #expect(first.status == 200, "\(first.text)")
            #expect(
                Self.statuses(first) == [
                    "api_base_url": "LOCAL", "min_supported_version": "UNCHANGED", "new_banner": "SOURCE_CHANGED",
                    "require_force_update": "UNCHANGED",
                ])
            #expect(first.value["base"] == .null)
            #expect(first.value["from"] == ["project": "shop-app-staging", "versionNumber": "1"])
            #expect(first.value["version"]?["updateOrigin"] == "PROMOTION")
            #expect(first.value["version"]?["promotedFrom"] == ["project": "shop-app-staging", "versionNumber": "1"])
            #expect(first.value["version"]?["description"] == "Promoted from shop-app-staging version 1")
            #expect(try await Self.value(app, "shop-app", "new_banner") == "on")
            #expect(try await Self.value(app, "shop-app", "api_base_url") == "https://api.example.com")
            let read = try await app.call(.get, "/v1/projects/shop-app/remoteConfig")
            #expect(read.value["version"]?["promotedFrom"]?["project"] == "shop-app-staging")

            // Promoting again at once changes nothing, and makes no version.
            let again = try await Self.promote(app)
            #expect(again.status == 200)
            #expect(again.value["changed"] == false)
            #expect(Set(Self.statuses(again).values) == ["UNCHANGED", "LOCAL"])
            #expect(again.value["version"]?["versionNumber"] == "2")

            // A hotfix in production, and staging turns the force update on: the force update is promoted, the
            // hotfix kept.
            try await app.publish(
                "shop-app", Self.template(minimum: "1.0.1", url: "https://api.example.com", extra: true))
            try await app.publish(
                "shop-app-staging", Self.template(force: true, url: "https://staging.example.com", extra: true))
            let second = try await Self.promote(app)
            #expect(second.status == 200, "\(second.text)")
            #expect(second.value["base"] == ["versionNumber": "1"])
            #expect(Self.statuses(second)["require_force_update"] == "SOURCE_CHANGED")
            #expect(Self.statuses(second)["min_supported_version"] == "TARGET_CHANGED")
            #expect(try await Self.value(app, "shop-app", "min_supported_version") == "1.0.1", "the hotfix stays")
            let forced = try await app.call(.get, "/v1/projects/shop-app/remoteConfig").value["parameters"]?[
                "require_force_update"]?["conditionalValues"]?["ios_old"]?["value"]
            #expect(forced == "true")

            // Both changed the minimum since: a conflict, with the list, and nothing published.
            try await app.publish(
                "shop-app-staging",
                Self.template(force: true, minimum: "1.2.0", url: "https://staging.example.com", extra: true))
            let conflict = try await Self.promote(app)
            #expect(conflict.status == 409, "\(conflict.text)")
            #expect(conflict.value["error"]?["status"] == "ABORTED")
            #expect(conflict.value["error"]?["details"]?[0]?["field"] == "parameters.min_supported_version")
            #expect(conflict.value["error"]?["details"]?[0]?["reason"] == "PROMOTION_CONFLICT")
            #expect(
                try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions").value["versions"]?
                    .arrayValue?.count == 4)
            // Named, it is the source's.
            let named = try await Self.promote(app, ["parameters": ["min_supported_version"]])
            #expect(named.status == 200, "\(named.text)")
            #expect(try await Self.value(app, "shop-app", "min_supported_version") == "1.2.0")

            // Audited, and the version says where it came from.
            let audit = try await app.call(.get, "/v1/projects/shop-app/auditLog").value["events"]?.arrayValue ?? []
            #expect(
                audit.contains {
                    $0["action"] == "template.publish"
                        && $0["detail"]?["promotedFrom"] == "shop-app-staging version 3"
                })
        }
    }

    @Test func underApprovalAPromotionIsAChangeRequestThatRecordsItsSource() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            try await Self.setUp(app)
            try await Workflow.requireApproval(app, true)
            let refused = try await Self.promote(app, ["as": "PUBLISH"])
            #expect(refused.status == 403)
            #expect(refused.value["error"]?["details"]?[0]?["reason"] == "APPROVAL_REQUIRED")
            let proposed = try await Self.promote(app, ["description": "banner to production"])
            #expect(proposed.status == 200, "\(proposed.text)")
            let request = try #require(proposed.value["changeRequest"])
            #expect(request["promotedFrom"] == ["project": "shop-app-staging", "versionNumber": "1"])
            #expect(request["description"] == "banner to production")
            #expect(try await Self.value(app, "shop-app", "new_banner") == nil, "nothing is published yet")
            let id = try #require(request["name"]?.stringValue?.split(separator: "/").last.map(String.init))
            let reviewer = try await app.createKey(role: "editor", project: "shop-app")
            #expect(try await Workflow.act(app, id, "approve", token: reviewer.secret).status == 200)
            #expect(try await Workflow.act(app, id, "publish").status == 200)
            let published = try await app.call(.get, "/v1/projects/shop-app/remoteConfig")
            #expect(published.value["version"]?["updateOrigin"] == "CHANGE_REQUEST")
            #expect(published.value["version"]?["promotedFrom"]?["versionNumber"] == "1")
            // The base is recorded: promoting again finds it.
            let again = try await Self.promote(app, ["validateOnly": true])
            #expect(again.value["base"] == ["versionNumber": "1"], "\(again.text)")
        }
    }

    @Test func aDryRunChangesNothingAndStaleOrRacingPromotionsGet412() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            try await Self.setUp(app)
            let dry = try await Self.promote(app, ["validateOnly": true])
            #expect(dry.status == 200)
            #expect(dry.value["template"]?["parameters"]?["new_banner"] != nil, "the resulting template")
            #expect(dry.value["version"] == nil)
            #expect(try await Self.value(app, "shop-app", "new_banner") == nil)

            #expect(try await Self.promote(app, ifMatch: "\"etag-shop-app-7\"").status == 412)
            // Two promotions with the same If-Match: one wins, the other is told its ETag is stale.
            let etag = "\"etag-shop-app-1\""
            async let one = Self.promote(app, ifMatch: etag)
            async let two = Self.promote(app, ifMatch: etag)
            let statuses = try await [one.status, two.status].sorted()
            #expect(statuses == [200, 412])
            #expect(try await Self.value(app, "shop-app", "new_banner") == "on")
            // A promotion racing a direct publish with the same If-Match: one wins, nothing is lost.
            try await app.publish(
                "shop-app-staging", Self.template(force: true, url: "https://staging.example.com", extra: true))
            let now = "\"etag-shop-app-2\""
            async let promotion = Self.promote(app, ifMatch: now)
            async let direct = app.publish(
                "shop-app", Self.template(minimum: "1.0.5", url: "https://api.example.com", extra: true), ifMatch: now)
            let (promoted, published) = try await (promotion.status, direct.status)
            #expect([promoted, published].sorted() == [200, 412], "\(promoted) \(published)")
            let minimum = try await Self.value(app, "shop-app", "min_supported_version")
            #expect(minimum == (published == 200 ? "1.0.5" : "1.0.0"), "the winner's template, whole")
        }
    }

    @Test func aBadPromotionIsRefusedWithItsField() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            try await Self.setUp(app)
            try await app.createProject("other-app")
            let cases: [(body: JSONValue, field: String, reason: String)] = [
                (["as": "MERGE"], "as", "INVALID_MODE"),
                (["from": "no-such-app"], "from", "PROJECT_NOT_FOUND"),
                (["from": "shop-app"], "from", "SAME_PROJECT"),
                (["from": "other-app"], "from", "NOTHING_PUBLISHED"),
                (["fromVersionNumber": "9"], "fromVersionNumber", "VERSION_NOT_FOUND"),
                (["colour": "red"], "colour", "UNKNOWN_FIELD"),
            ]
            for (body, field, reason) in cases {
                let reply = try await Self.promote(app, body)
                #expect(reply.status == 400, "\(body): \(reply.text)")
                #expect(reply.value["error"]?["details"]?[0]?["field"] == .string(field), "\(body): \(reply.text)")
                #expect(reply.value["error"]?["details"]?[0]?["reason"] == .string(reason), "\(body): \(reply.text)")
            }
            // Without If-Match, as a publish.
            #expect(try await app.call(.post, Self.path, json: [:]).status == 428)
            // A key that cannot read the source is told it does not exist.
            let editor = try await app.createKey(role: "editor", project: "shop-app").secret
            let hidden = try await app.call(.post, Self.path, token: editor, json: [:], headers: [.ifMatch: "*"])
            #expect(hidden.status == 400)
            #expect(hidden.value["error"]?["details"]?[0]?["reason"] == "PROJECT_NOT_FOUND")
            #expect(try await Self.value(app, "shop-app", "new_banner") == nil, "nothing was promoted")
        }
    }
}

/// `remoteConfig:compare`: drift between two projects, whole parameters and conditions.
@Suite struct CompareTests {
    @Test func driftIsReportedParameterByParameter() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            try await PromotionTests.setUp(app)
            let reply = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:compare?with=shop-app-staging")
            #expect(reply.status == 200, "\(reply.text)")
            var statuses: [String: String] = [:]
            for entry in reply.value["parameters"]?.arrayValue ?? [] {
                statuses[entry["key"]?.stringValue ?? ""] = entry["status"]?.stringValue
            }
            #expect(
                statuses == [
                    "api_base_url": "LOCAL", "min_supported_version": "SAME", "new_banner": "ONLY_THERE",
                    "require_force_update": "SAME",
                ])
            #expect(reply.value["conditions"]?[0]?["status"] == "SAME")
            // The same condition name with another expression: the parameter using it differs too.
            try await app.publish(
                "shop-app", PromotionTests.template(url: "https://api.example.com", old: "device.os == 'ios'"))
            let drift = try await app.call(
                .get, "/v1/projects/shop-app/remoteConfig:compare?with=shop-app-staging&withVersionNumber=1")
            #expect(drift.value["conditions"]?[0]?["status"] == "DIFFERENT")
            let force = drift.value["parameters"]?.arrayValue?.first { $0["key"] == "require_force_update" }
            #expect(force?["status"] == "DIFFERENT")
            #expect(
                try await app.call(.get, "/v1/projects/shop-app/remoteConfig:compare?with=nope").status == 400)
            #expect(try await app.call(.get, "/v1/projects/shop-app/remoteConfig:compare").status == 400)
        }
    }
}

/// A promotion as a draft, a named parameter the source lacks, and what webhooks hear.
@Suite struct PromotionOutcomeTests {
    @Test func aDraftCarriesItsSourceUntilItIsPublished() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            try await PromotionTests.setUp(app)
            // If-Match is then the draft's ETag: none exists yet, so the unsaved draft's.
            let unsaved = try await app.call(.get, "/v1/projects/shop-app/remoteConfig/draft")
            let etag = try #require(unsaved.headers[.eTag])
            let saved = try await PromotionTests.promote(app, ["as": "DRAFT"], ifMatch: etag)
            #expect(saved.status == 200, "\(saved.text)")
            #expect(saved.value["draft"]?["baseVersionNumber"] == "1")
            #expect(try await PromotionTests.value(app, "shop-app", "new_banner") == nil, "a draft publishes nothing")
            let draft = try await app.call(.get, "/v1/projects/shop-app/remoteConfig/draft")
            #expect(draft.value["parameters"]?["new_banner"] != nil)
            let draftETag = try #require(draft.headers[.eTag])
            let published = try await app.call(
                .post, "/v1/projects/shop-app/remoteConfig/draft:publish", json: [:], headers: [.ifMatch: draftETag])
            #expect(published.status == 200, "\(published.text)")
            #expect(
                published.value["version"]?["promotedFrom"] == ["project": "shop-app-staging", "versionNumber": "1"])
            let again = try await PromotionTests.promote(app, ["validateOnly": true])
            #expect(again.value["base"] == ["versionNumber": "1"], "the draft's publish recorded the base")
        }
    }

    @Test func aNamedParameterTheSourceLacksIsRemovedAndWebhooksHearWhereFrom() async throws {
        try await WebhookReceiver.run { receiver in
            try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.fast) { app in
                try await PromotionTests.setUp(app)
                _ = try await app.admin.createWebhook(
                    "shop-app", WebhookRequest(url: receiver.url, events: ["template.published"]))
                // Production has a parameter staging removed: named, it goes; local ones never move.
                try await app.publish(
                    "shop-app", PromotionTests.template(url: "https://api.example.com", extra: true))
                let removed = try await PromotionTests.promote(
                    app, ["parameters": ["new_banner", "api_base_url"], "from": "shop-app-staging"])
                #expect(removed.status == 200, "\(removed.text)")
                #expect(PromotionTests.statuses(removed)["api_base_url"] == "LOCAL")
                // staging has new_banner too; remove it there first to make it absent from the source.
                try await app.publish("shop-app-staging", PromotionTests.template(url: "https://staging.example.com"))
                let gone = try await PromotionTests.promote(app, ["parameters": ["new_banner"]])
                #expect(gone.status == 200, "\(gone.text)")
                #expect(PromotionTests.statuses(gone)["new_banner"] == "SOURCE_CHANGED")
                #expect(try await PromotionTests.value(app, "shop-app", "new_banner") == nil)
                #expect(try await PromotionTests.value(app, "shop-app", "api_base_url") == "https://api.example.com")
                // The direct publish, then the two promotions (the first moved nothing but recorded its base).
                let received = try await receiver.waitFor(3)
                #expect(received.map { $0.value["data"]?["updateOrigin"] } == ["REST_API", "PROMOTION", "PROMOTION"])
                let last = try #require(received.last?.value["data"])
                #expect(last["updateOrigin"] == "PROMOTION", "\(received.map(\.value))")
                #expect(last["promotedFrom"]?["project"] == "shop-app-staging")
            }
        }
    }
}
