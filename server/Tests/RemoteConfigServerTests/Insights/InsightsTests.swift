import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// Fleet insights through the API: fetches and OFREP calls counted by version, parameter source and
/// condition, written at a flush, read back by the three routes.
@Suite struct InsightsTests {
    static var template: JSONValue {
        [
            "conditions": [
                ["name": "ios_too_old", "expression": "device.os == 'ios' && app.version.<(['2.0.0'])"]
            ],
            "parameters": [
                "require_force_update": [
                    "defaultValue": ["value": "false"], "conditionalValues": ["ios_too_old": ["value": "true"]],
                    "valueType": "BOOLEAN",
                ],
                "tip": ["defaultValue": ["useInAppDefault": true], "valueType": "STRING"],
            ],
        ]
    }

    static func body(_ instance: String, _ platform: String?, _ version: String?) -> JSONValue {
        var body: JSONObject = ["appInstanceId": .string(instance)]
        if let platform { body["platform"] = .string(platform) }
        if let version { body["appVersion"] = .string(version) }
        return .object(body)
    }

    /// `shop-app` with `template` published and a client key.
    static func withShop(
        live: Bool = false, configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable @escaping (TestApp.Session, String) async throws -> Void
    ) async throws {
        try await TestApp.run(url: try await TestCluster.shared.makeDatabase(), live: live, configure: configure) {
            app in
            try await app.createProject("shop-app")
            let published = try await app.publish("shop-app", template)
            try SetupFailure.unless(published.status == 200, published.text)
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await body(app, key.secret)
        }
    }

    @Test(arguments: [false, true]) func fetchesAndOFREPAreCountedByVersionSourceAndCondition(live: Bool) async throws {
        try await Self.withShop(live: live) { app, key in
            // 3 old iOS instances fetch twice each (the second time a 304), 2 new iOS, 1 Android, 1 without
            // platform or version.
            for index in 0..<3 {
                let first = try await ClientCalls.fetch(app, key: key, Self.body("old-\(index)", "IOS", "1.9.0"))
                #expect(first.status == 200)
                let again = try await ClientCalls.fetch(
                    app, key: key, Self.body("old-\(index)", "IOS", "1.9.0"), ifNoneMatch: first.headers[.eTag])
                #expect(again.status == 304)
            }
            for index in 0..<2 {
                #expect(
                    try await ClientCalls.fetch(app, key: key, Self.body("new-\(index)", "IOS", "2.3.0")).status == 200)
            }
            #expect(try await ClientCalls.fetch(app, key: key, Self.body("droid", "ANDROID", "5.0")).status == 200)
            #expect(try await ClientCalls.fetch(app, key: key, Self.body("bare", nil, nil)).status == 200)
            // OFREP: one bulk answer, one single flag (counts that flag only), one unknown flag (no answer).
            let ofrep: JSONValue = ["context": ["targetingKey": "old-0", "platform": "IOS", "appVersion": "1.9.0"]]
            let bearer: HTTPFields = [.authorization: "Bearer \(key)"]
            #expect(
                try await app.call(.post, "/ofrep/v1/evaluate/flags", token: nil, json: ofrep, headers: bearer).status
                    == 200)
            #expect(
                try await app.call(
                    .post, "/ofrep/v1/evaluate/flags/require_force_update", token: nil, json: ofrep, headers: bearer
                ).status == 200)
            #expect(
                try await app.call(.post, "/ofrep/v1/evaluate/flags/nope", token: nil, json: ofrep, headers: bearer)
                    .status == 404)
            try await app.environment.flushInsights()

            let versions = try await app.call(.get, "/v1/projects/shop-app/insights/versions")
            #expect(versions.status == 200, "\(versions.text)")
            let report = try JSONDecoder().decode(InsightsVersionsReport.self, from: versions.body)
            #expect(report.enabled)
            #expect(report.platforms.map(\.platform) == ["ANDROID", "IOS", "UNKNOWN"])
            let ios = try #require(report.platforms.first { $0.platform == "IOS" })
            #expect(ios.activeInstances == 5)
            #expect(ios.answers == 3 * 2 + 2 + 2)
            #expect(ios.versions.map(\.version) == ["2.3.0", "1.9.0"])
            #expect(ios.versions[1].activeInstances == 3)
            #expect(ios.versions[1].answers == 8)
            #expect(ios.versions[1].share == 0.6)
            #expect(report.platforms.last?.versions.map(\.version) == ["(invalid)"])

            let onlyIOS = try JSONDecoder().decode(
                InsightsVersionsReport.self,
                from: try await app.call(.get, "/v1/projects/shop-app/insights/versions?platform=ios").body)
            #expect(onlyIOS.platforms.map(\.platform) == ["IOS"])

            let parameters = try await app.call(.get, "/v1/projects/shop-app/insights/parameters")
            #expect(parameters.status == 200, "\(parameters.text)")
            let sources = try JSONDecoder().decode(InsightsParametersReport.self, from: parameters.body)
            #expect(sources.answers == 12)
            let force = try #require(sources.parameters["require_force_update"]).sources
            #expect(force.first == .init(source: "CONDITION", condition: "ios_too_old", answers: 8, share: 0.6667))
            #expect(force.last == .init(source: "DEFAULT", condition: nil, answers: 4, share: 0.3333))
            let tip = try #require(sources.parameters["tip"]).sources
            #expect(tip == [.init(source: "IN_APP_DEFAULT", condition: nil, answers: 11, share: 0.9167)])
            #expect(sources.conditions["ios_too_old"] == .init(matched: 8, share: 0.6667))

            let timeline = try await app.call(.get, "/v1/projects/shop-app/insights/timeline?bucket=HOUR&platform=IOS")
            #expect(timeline.status == 200, "\(timeline.text)")
            let buckets = try JSONDecoder().decode(InsightsTimelineReport.self, from: timeline.body).buckets
            #expect(buckets.count == 1)
            #expect(buckets.first?.activeInstances == 5)
            #expect(buckets.first?.versions == ["1.9.0": 3, "2.3.0": 2])
        }
    }

    /// Bodies over the inline limit are read off the event loop: their answers count like every other.
    @Test func answersToLongBodiesAreCounted() async throws {
        try await Self.withShop { app, key in
            var signals = JSONObject()
            for index in 0..<100 { signals["signal_\(index)"] = .string(String(repeating: "x", count: 200)) }
            var fetch = try #require(Self.body("long-fetch", "IOS", "1.9.0").objectValue)
            fetch["customSignals"] = .object(signals)
            let bytes = JSONValue.object(fetch).jsonBytes()
            try SetupFailure.unless(bytes.count > 16 * 1024, "the body is \(bytes.count) bytes")
            #expect(try await ClientCalls.fetch(app, key: key, .object(fetch)).status == 200)
            var context = signals
            context["targetingKey"] = "long-ofrep"
            context["platform"] = "IOS"
            context["appVersion"] = "1.9.0"
            let ofrep = try await app.call(
                .post, "/ofrep/v1/evaluate/flags", token: nil, json: ["context": .object(context)],
                headers: [.authorization: "Bearer \(key)"])
            #expect(ofrep.status == 200, "\(ofrep.text)")
            try await app.environment.flushInsights()

            let versions = try await app.call(.get, "/v1/projects/shop-app/insights/versions")
            let report = try JSONDecoder().decode(InsightsVersionsReport.self, from: versions.body)
            let ios = try #require(report.platforms.first { $0.platform == "IOS" }, "\(versions.text)")
            #expect(ios.versions.map(\.version) == ["1.9.0"])
            #expect(ios.answers == 2)
            #expect(ios.activeInstances == 2)
        }
    }

    @Test func routesCheckTheirInputAndTheCaller() async throws {
        try await Self.withShop { app, key in
            let base = "/v1/projects/shop-app/insights"
            let cases: [(String, String)] = [
                ("\(base)/versions?since=yesterday", "since"),
                ("\(base)/versions?until=2026-13-01T00:00:00Z", "until"),
                ("\(base)/versions?since=2026-11-20T00:00:00Z&until=2026-11-19T00:00:00Z", "since"),
                ("\(base)/versions?platform=SYMBIAN", "platform"),
                ("\(base)/timeline?bucket=WEEK", "bucket"),
                ("\(base)/parameters?since=", "since"),
            ]
            for (path, field) in cases {
                let reply = try await app.call(.get, path)
                #expect(reply.status == 400, "\(path): \(reply.text)")
                #expect(reply.errorFields == [field], "\(path): \(reply.text)")
            }
            #expect(try await app.call(.get, "\(base)/versions?colour=red").status == 400)
            #expect(try await app.call(.get, "\(base)/versions", token: nil).status == 401)
            #expect(try await app.call(.get, "\(base)/versions", token: key).status == 403)
            try await app.createProject("other-app")
            let otherViewer = try await app.createKey(role: "viewer", project: "other-app")
            #expect(try await app.call(.get, "\(base)/versions", token: otherViewer.secret).status == 403)
            let viewer = try await app.createKey(role: "viewer", project: "shop-app")
            #expect(try await app.call(.get, "\(base)/parameters", token: viewer.secret).status == 200)
            #expect(try await app.call(.get, "/v1/projects/nope/insights/versions").status == 404)
        }
    }

    @Test func insightsOffCountsNothingAndSaysSo() async throws {
        let off: (inout ServerConfiguration) -> Void = { $0.insightsEnabled = false }
        try await Self.withShop(configure: off) { app, key in
            #expect(try await ClientCalls.fetch(app, key: key, Self.body("a", "IOS", "1.0")).status == 200)
            try await app.environment.flushInsights()
            let versions = try await app.call(.get, "/v1/projects/shop-app/insights/versions")
            #expect(versions.status == 200)
            let report = try JSONDecoder().decode(InsightsVersionsReport.self, from: versions.body)
            #expect(!report.enabled)
            #expect(report.platforms.isEmpty)
            let timeline = try JSONDecoder().decode(
                InsightsTimelineReport.self,
                from: try await app.call(.get, "/v1/projects/shop-app/insights/timeline").body)
            #expect(!timeline.enabled && timeline.buckets.isEmpty)
            let rows = try await app.database.run { client in
                var total = 0
                for try await count in try await client.query(
                    "SELECT (SELECT count(*) FROM insight_versions_hourly) + (SELECT count(*) FROM insight_samples)"
                ).decode(Int.self) { total = count }
                return total
            }
            #expect(rows == 0)
        }
    }
}
