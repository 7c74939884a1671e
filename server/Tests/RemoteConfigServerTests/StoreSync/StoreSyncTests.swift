import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// What the store sync tests share: `shop-app` with the force-update template, linked to a fake store.
enum StoreSyncFixture {
    static let path = "/v1/projects/shop-app/storeSync"
    static let run = "/v1/projects/shop-app/storeSync:run"

    /// The targets of API.md's example.
    static let targets = StoreLinkTargets([
        .init(parameter: "current_version", field: "version"), .init(parameter: "app_store_url", field: "trackViewUrl"),
    ])

    /// The link of API.md's example; switched off unless asked, so only `:run` syncs it.
    static func link(
        enabled: Bool = false, appStoreId: String = "123456789", parameters: StoreLinkTargets = targets,
        autoApprove: Bool = false, releaseDelaySeconds: Int? = nil
    ) -> StoreLinkRequest {
        StoreLinkRequest(
            enabled: enabled, appStoreId: appStoreId, country: "jp", intervalSeconds: 3600, parameters: parameters,
            autoApprove: autoApprove, releaseDelaySeconds: releaseDelaySeconds)
    }

    /// `link()` as JSON with `extra`'s members set on it (replaced in place or added): for the bodies the request
    /// type cannot write, a value of the wrong type or a member a link does not have.
    static func linkJSON(_ extra: JSONObject = [:], without removed: String? = nil) -> JSONValue {
        var body: JSONObject = [
            "enabled": false, "appStoreId": "123456789", "country": "jp", "intervalSeconds": 3600,
            "parameters": ["current_version": "version", "app_store_url": "trackViewUrl"], "autoApprove": false,
        ]
        for member in extra { body[member.key] = member.value }
        if let removed { body[removed] = nil }
        return .object(body)
    }

    /// The force-update template with `parameter` set to `value` (replaced in place or added).
    static func template(setting parameter: String, to value: JSONValue) -> JSONValue {
        guard case .object(var template) = TemplateFixtures.forceUpdateValue(),
            case .object(var parameters)? = template["parameters"]
        else { return TemplateFixtures.forceUpdateValue() }
        parameters[parameter] = value
        template["parameters"] = .object(parameters)
        return .object(template)
    }

    /// An application whose store lookup is `store`, with `shop-app` published and a client key.
    static func shop(
        _ store: FakeAppStore,
        configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable @escaping (TestApp.Session, String) async throws -> Void
    ) async throws {
        let lookup = store.url
        let url = try await TestClusterURL.make()
        let setUp: (inout ServerConfiguration) -> Void = {
            $0.storeLookupURL = lookup
            configure(&$0)
        }
        try await TestApp.run(url: url, configure: setUp) { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await body(app, key.secret)
        }
    }

    /// The entries an iOS 2.0.0 app fetches.
    static func entries(_ app: TestApp.Session, _ key: String) async throws -> [String: String] {
        let reply = try await ClientCalls.fetch(app, key: key, ClientCalls.iosBody("2.0.0"))
        return strings(reply.value["entries"])
    }

    /// An object whose members are all strings, as a dictionary; empty otherwise.
    static func strings(_ value: JSONValue?) -> [String: String] {
        guard let members = value?.dictionaryValue else { return [:] }
        let strings = members.compactMapValues(\.stringValue)
        return strings.count == members.count ? strings : [:]
    }

    /// The published versions, newest first.
    static func versions(_ app: TestApp.Session) async throws -> [JSONValue] {
        let reply = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions")
        return reply.value["versions"]?.arrayValue ?? []
    }

    /// Polls `condition` every 20 ms until it holds or `limit` passes.
    static func eventually(_ limit: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws
        -> Bool
    {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < limit {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

/// Store version sync: the link's settings, and syncs that publish what the store says.
@Suite struct StoreSyncTests {
    @Test func aProjectWithoutALinkShowsTheDefaultsSwitchedOff() async throws {
        try await FakeAppStore.run { store in
            try await StoreSyncFixture.shop(store) { app, _ in
                let reply = try await app.call(.get, StoreSyncFixture.path)
                #expect(reply.status == 200)
                #expect(try reply.storeLink.enabled == false)
                #expect(try reply.storeLink.intervalSeconds == 3600)
                #expect(reply.value["appStoreId"] == .null)
                #expect(reply.value["lastSyncTime"] == .null)
                #expect(try await app.call(.post, StoreSyncFixture.run).errorReasons == ["NO_STORE_LINK"])
            }
        }
    }

    @Test func theLinkIsSavedAuditedAndReadBack() async throws {
        try await FakeAppStore.run { store in
            try await StoreSyncFixture.shop(store) { app, _ in
                let saved = try await app.call(
                    .put, StoreSyncFixture.path,
                    json: StoreSyncFixture.linkJSON(["country": "JP", "appStoreId": 123_456_789]))
                #expect(saved.status == 200, "\(saved.text)")
                let read = try await app.call(.get, StoreSyncFixture.path)
                for reply in [saved, read] {
                    #expect(try reply.storeLink.appStoreId == "123456789")
                    #expect(try reply.storeLink.country == "jp")
                    #expect(try reply.storeLink.enabled == false)
                    #expect(try reply.storeLink.autoApprove == false)
                    #expect(try reply.storeLink.parameters == StoreSyncFixture.targets)
                    #expect(reply.value["lastSyncTime"] == .null)
                    #expect(reply.value["lastStoreVersion"] == .null)
                    #expect(reply.value["lastError"] == .null)
                }
                // The order people wrote the targets in is kept.
                for order in [["current_version", "app_store_url"], ["app_store_url", "current_version"]] {
                    let body =
                        #"{"appStoreId": "123456789", "enabled": false, "parameters": {"#
                        + order.map { #""\#($0)": "version""# }.joined(separator: ", ") + "}}"
                    let saved = try await app.call(.put, StoreSyncFixture.path, raw: .init(string: body))
                    #expect(saved.status == 200, "\(saved.text)")
                    let keys = try await app.call(.get, StoreSyncFixture.path).text
                    #expect(keys.range(of: order[0])!.lowerBound < keys.range(of: order[1])!.lowerBound, "\(keys)")
                }
                // What a read answers may be sent back as it is.
                let roundTrip = try await app.call(.put, StoreSyncFixture.path, raw: .init(data: read.body))
                #expect(roundTrip.status == 200, "\(roundTrip.text)")

                let events = try await app.call(.get, "/v1/projects/shop-app/auditLog").decode(AuditLogPage.self).events
                let update = try #require(events.first { $0.action == "storeSync.update" })
                #expect(update.detail["appStoreId"]?.stringValue == "123456789")
                #expect(update.actorKey != nil)
                // Only the link changed: the template is as it was.
                #expect(try await StoreSyncFixture.versions(app).count == 1)
            }
        }
    }

    @Test func badLinksAreRefusedNamingEachFieldAndChangeNothing() async throws {
        try await FakeAppStore.run { store in
            try await StoreSyncFixture.shop(store) { app, _ in
                try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link())
                let before = try await app.call(.get, StoreSyncFixture.path).text
                let cases: [(JSONObject, String, String)] = [
                    (["intervalSeconds": 59], "intervalSeconds", "INTERVAL_TOO_SHORT"),
                    (["intervalSeconds": "soon"], "intervalSeconds", "NOT_AN_INTEGER"),
                    (["appStoreId": "shop"], "appStoreId", "INVALID_APP_STORE_ID"),
                    (["country": "jpn"], "country", "INVALID_COUNTRY"),
                    (["enabled": "yes"], "enabled", "NOT_A_BOOLEAN"),
                    (["autoApprove": 1], "autoApprove", "NOT_A_BOOLEAN"),
                    (["parameters": ["current_version": "price"]], "parameters.current_version", "UNKNOWN_STORE_FIELD"),
                    (["parameters": ["latest": "version"]], "parameters.latest", "PARAMETER_NOT_FOUND"),
                    (
                        ["parameters": ["require_force_update": "version"]], "parameters.require_force_update",
                        "NOT_A_STRING_PARAMETER"
                    ),
                    (["parameters": ["current_version", "version"]], "parameters", "NOT_AN_OBJECT"),
                    (["intervalSecond": 60], "intervalSecond", "UNKNOWN_FIELD"),
                ]
                for (change, field, reason) in cases {
                    let reply = try await app.call(
                        .put, StoreSyncFixture.path, json: StoreSyncFixture.linkJSON(change))
                    #expect(reply.status == 400, "\(change): \(reply.text)")
                    #expect(reply.errorStatus == "INVALID_ARGUMENT")
                    #expect(reply.errorFields == [field], "\(change): \(reply.text)")
                    #expect(reply.errorReasons == [reason], "\(change): \(reply.text)")
                }
                let missing = StoreSyncFixture.linkJSON(without: "appStoreId")
                #expect(try await app.call(.put, StoreSyncFixture.path, json: missing).errorReasons == ["REQUIRED"])
                // Every problem at once.
                let several = try await app.call(
                    .put, StoreSyncFixture.path,
                    json: StoreSyncFixture.linkJSON(["intervalSeconds": 10, "country": "x"]))
                #expect(several.errorFields == ["country", "intervalSeconds"])
                #expect(
                    several.errorBody?.error.message
                        == "the store link is not valid: country must be a two-letter storefront code such as us or jp"
                        + " (and 1 more problems)", "\(several.text)")
                #expect(
                    several.errorBody?.error.details?.last?.message == "intervalSeconds must be at least 60",
                    "\(several.text)")
                #expect(try await app.call(.get, StoreSyncFixture.path).text == before)
            }
        }
    }

    @Test func aNewStoreVersionIsPublishedOnceAndFetched() async throws {
        try await FakeAppStore.run { store in
            store.answer(.listing(version: "2.4.0"))
            try await StoreSyncFixture.shop(store) { app, key in
                try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link())
                let run = try await app.call(.post, StoreSyncFixture.run)
                #expect(run.status == 200, "\(run.text)")
                #expect(try run.storeLink.result == "PUBLISHED")
                #expect(try run.storeLink.publishedVersionNumber == "2")
                #expect(try run.storeLink.lastStoreVersion == "2.4.0")
                #expect(run.value["lastError"] == .null)
                #expect(run.value["lastSyncTime"]?.stringValue != nil)
                #expect(store.requests == ["/lookup?id=123456789&country=jp"])

                let entries = try await StoreSyncFixture.entries(app, key)
                #expect(entries["current_version"] == "2.4.0")
                #expect(entries["app_store_url"] == "https://apps.apple.com/jp/app/shop/id123456789?uo=4")
                // People's values are theirs: the force-update rule is untouched.
                #expect(entries["require_force_update"] == "false")
                let version = try #require(try await StoreSyncFixture.versions(app).first)
                #expect(version["updateOrigin"] == "STORE_SYNC")
                #expect(version["description"]?.stringValue?.contains("2.4.0") == true)
                #expect(version["updateType"] == "INCREMENTAL_UPDATE")
                let events = try await app.call(.get, "/v1/projects/shop-app/auditLog").decode(AuditLogPage.self).events
                #expect(events.first?.action == "template.publish")

                // The same answer again changes nothing: no new version.
                let again = try await app.call(.post, StoreSyncFixture.run)
                #expect(try again.storeLink.result == "UNCHANGED")
                #expect(try await StoreSyncFixture.versions(app).count == 2)

                // A new release in the store becomes the next version.
                store.answer(.listing(version: "2.5.0"))
                let next = try await app.call(.post, StoreSyncFixture.run)
                #expect(try next.storeLink.publishedVersionNumber == "3")
                #expect(try await StoreSyncFixture.entries(app, key)["current_version"] == "2.5.0")
            }
        }
    }

    @Test func anEnabledLinkIsSyncedByTheServerItself() async throws {
        try await FakeAppStore.run { store in
            store.answer(.listing(version: "2.4.0"))
            try await StoreSyncFixture.shop(store, configure: { $0.storeSyncPollInterval = .milliseconds(50) }) {
                app, key in
                let saved = try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link(enabled: true))
                #expect(saved.status == 200)
                #expect(saved.value["nextSyncTime"]?.stringValue != nil)
                let followed = try await StoreSyncFixture.eventually {
                    try await StoreSyncFixture.entries(app, key)["current_version"] == "2.4.0"
                }
                #expect(followed, "the enabled link was not synced")
                let status = try await app.call(.get, StoreSyncFixture.path)
                #expect(try status.storeLink.lastStoreVersion == "2.4.0")
                let version = try #require(try await StoreSyncFixture.versions(app).first)
                #expect(version["updateUser"] == ["email": "store sync"])
                // The next sync is an interval away.
                let next = try #require(
                    try status.storeLink.nextSyncTime)
                #expect(next.timeIntervalSinceNow > 3000)
            }
        }
    }

    /// The README's recipe, with its bodies: the store sets `current_version` and `app_store_url`, people keep
    /// `min_supported_version` and the broken release.
    @Test func theReadmeRecipeFollowsTheStoreAndKeepsPeoplesVersions() async throws {
        try await FakeAppStore.run { store in
            store.answer(.listing(version: "2.4.0", trackViewUrl: "https://apps.apple.com/jp/app/id123456789"))
            try await StoreSyncFixture.shop(store) { app, key in
                let template = """
                    {"conditions": [
                      {"name": "ios_too_old", "expression": "device.os == 'ios' && app.version.<(['2.0.0'])"},
                      {"name": "broken_release", "expression": "app.version.==(['1.1.4'])"}],
                     "parameters": {
                      "require_force_update": {"defaultValue": {"value": "false"}, "valueType": "BOOLEAN",
                        "conditionalValues": {"ios_too_old": {"value": "true"}, "broken_release": {"value": "true"}}},
                      "min_supported_version": {"defaultValue": {"value": "2.0.0"}, "valueType": "STRING"},
                      "current_version": {"defaultValue": {"value": "2.3.0"}, "valueType": "STRING"},
                      "app_store_url": {"defaultValue": {"value": "https://apps.apple.com/app/id123456789"},
                        "valueType": "STRING"}}}
                    """
                let published = try await app.call(
                    .put, "/v1/projects/shop-app/remoteConfig", raw: .init(string: template), headers: [.ifMatch: "*"])
                #expect(published.status == 200)
                let link = """
                    {"enabled": true, "appStoreId": "123456789", "country": "jp", "intervalSeconds": 3600,
                     "parameters": {"current_version": "version", "app_store_url": "trackViewUrl"}}
                    """
                #expect(try await app.call(.put, StoreSyncFixture.path, raw: .init(string: link)).status == 200)
                #expect(
                    try await StoreSyncFixture.eventually {
                        try await StoreSyncFixture.entries(app, key)["current_version"] == "2.4.0"
                    })
                let run = try await app.call(.post, StoreSyncFixture.run)
                #expect(try run.storeLink.result == "UNCHANGED")
                for (version, forced) in [("1.1.4", "true"), ("1.9.9", "true"), ("2.3.0", "false")] {
                    let reply = try await ClientCalls.fetch(app, key: key, ClientCalls.iosBody(version))
                    let entries = StoreSyncFixture.strings(reply.value["entries"])
                    #expect(entries["require_force_update"] == forced, "\(version)")
                    #expect(entries["min_supported_version"] == "2.0.0")
                    #expect(entries["current_version"] == "2.4.0")
                    #expect(entries["app_store_url"] == "https://apps.apple.com/jp/app/id123456789")
                }
            }
        }
    }

    @Test func aParameterInAGroupFollowsToo() async throws {
        try await FakeAppStore.run { store in
            store.answer(.listing(version: "3.0.0"))
            try await StoreSyncFixture.shop(store) { app, key in
                let grouped: JSONValue = [
                    "parameters": ["app_store_url": ["defaultValue": ["useInAppDefault": true]]],
                    "parameterGroups": [
                        "force_update": [
                            "parameters": [
                                "current_version": ["defaultValue": ["value": "2.3.0"], "valueType": "STRING"],
                                "min_supported_version": ["defaultValue": ["value": "2.0.0"], "valueType": "STRING"],
                            ]
                        ]
                    ],
                ]
                #expect(try await app.publish("shop-app", grouped).status == 200)
                try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link())
                let run = try await app.call(.post, StoreSyncFixture.run)
                #expect(try run.storeLink.result == "PUBLISHED", "\(run.text)")
                let entries = try await StoreSyncFixture.entries(app, key)
                #expect(entries["current_version"] == "3.0.0")
                #expect(entries["min_supported_version"] == "2.0.0")
            }
        }
    }
}

extension TestApp.Reply {
    /// The answer as a store link.
    fileprivate var storeLink: RemoteConfigAPI.StoreLink {
        get throws { try decode(RemoteConfigAPI.StoreLink.self) }
    }
}
