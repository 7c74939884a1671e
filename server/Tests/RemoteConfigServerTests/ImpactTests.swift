import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// `remoteConfig:impact`: what a template body, the draft or a change request would change for the app
/// instances seen recently, from the impact sample, before anything is published.
@Suite struct ImpactTests {
    static let path = "/v1/projects/shop-app/remoteConfig:impact"

    /// 100 instances: 40 iOS 2.3.0, 30 iOS 2.2.1, 20 iOS 1.1.4 (already required to update), 10 Android 1.0.9.
    static var fleet: [JSONValue] {
        InsightSampleRows.fleet("a", 40, platform: "IOS", version: "2.3.0")
            + InsightSampleRows.fleet("b", 30, platform: "IOS", version: "2.2.1")
            + InsightSampleRows.fleet("c", 20, platform: "IOS", version: "1.1.4")
            + InsightSampleRows.fleet("d", 10, platform: "ANDROID", version: "1.0.9")
    }

    /// The force update template with iOS required below 2.3.0 instead of 2.0.0, and 2.4.0 the current version.
    static var raised: JSONValue {
        raised(conditions: [
            ["name": "ios_too_old", "expression": "device.os == 'ios' && app.version.<(['2.3.0'])"],
            ["name": "broken_release", "expression": "app.version.==(['1.1.4'])"],
        ])
    }

    /// `raised` with other `conditions`.
    static func raised(conditions: JSONValue) -> JSONValue {
        var template = TemplateFixtures.forceUpdateValue(currentVersion: "2.4.0").objectValue ?? [:]
        template["conditions"] = conditions
        return .object(template)
    }

    /// A project with the force update template published and the fleet sampled.
    static func sampled(
        activeInstances: Int? = nil, _ body: @Sendable @escaping (TestApp.Session) async throws -> Void
    ) async throws {
        let setUp: @Sendable (TestApp.Session) async throws -> Void = { app in
            try await app.createProject("shop-app")
            try #require(try await app.publish("shop-app", TemplateFixtures.forceUpdateValue()).status == 200)
            try await InsightSampleRows.insert(app.database, project: "shop-app", contexts: Self.fleet)
            try await body(app)
        }
        try await TestApp.run(
            url: try await TestCluster.shared.makeDatabase(),
            environment: { environment in
                if let activeInstances { environment.activeInstances = { _, _, _, _ in activeInstances } }
            }, setUp)
    }

    @Test func countsWhoWouldNewlyBeRequiredToUpdate() async throws {
        try await Self.sampled { app in
            let viewer = try await app.createKey(role: "viewer", project: "shop-app")
            let reply = try await app.call(.post, Self.path, token: viewer.secret, json: ["template": Self.raised])
            #expect(reply.status == 200, "\(reply.text)")
            let report = try reply.decode(ImpactReport.self)
            #expect(report.sample.instances == 100)
            #expect(report.sample.activeInstances == 100)
            let forced = report.forceUpdate
            #expect(forced.parameter == "require_force_update")
            #expect(forced.newlyRequired == 30)
            #expect(forced.share == 0.3)
            #expect(forced.noLongerRequired == 0)
            // The sample is the whole active fleet here: nothing is estimated, so no margin.
            #expect(forced.margin == 0)
            let changes = report.changes
            // In the published template's parameter order (here that of a dictionary, so either).
            #expect(Set(changes.map(\.parameter)) == ["require_force_update", "current_version"])
            let required = try #require(changes.first { $0.parameter == "require_force_update" })
            #expect(required.from == "false")
            #expect(required.to == "true")
            #expect(required.instances == 30)
            let ios = required.byPlatform["IOS"]
            #expect(ios?.instances == 30)
            #expect(ios?.share == 0.3333)
            let versions = required.byVersion
            #expect(versions.count == 1)
            #expect(versions.first?.version == "2.2.1")
            #expect(versions.first?.platform == "IOS")
            let current = try #require(changes.first { $0.parameter == "current_version" })
            #expect(current.instances == 100)
            #expect(current.to == "2.4.0")
            let summary = report.summary
            #expect(
                summary.hasPrefix(
                    "This change makes 33.3% of active iOS installs, about 30, required to update: 2.2.1."))
            // No instance id or context ever leaves the server.
            #expect(!reply.text.contains("appInstanceId"))
            #expect(!reply.text.contains("\"a-1\"") && !reply.text.contains("b-0"))
        }
    }

    @Test func scalesToTheActiveInstancesWithAMargin() async throws {
        try await Self.sampled(activeInstances: 41_230) { app in
            let reply = try await app.call(.post, Self.path, json: ["template": Self.raised])
            #expect(reply.status == 200, "\(reply.text)")
            let report = try reply.decode(ImpactReport.self)
            #expect(report.sample.activeInstances == 41_230)
            #expect(report.forceUpdate.newlyRequired == 12_369)
            // 1.96 × √(0.3 × 0.7 / 100) × √((41230 − 100) / 41229)
            #expect(report.forceUpdate.margin == 0.0897)
        }
    }

    @Test func readsTheDraftAndChangeRequests() async throws {
        try await Self.sampled { app in
            let saved = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig/draft", json: Self.raised, headers: [.ifMatch: "*"])
            #expect(saved.status == 200, "\(saved.text)")
            let draft = try await app.call(.post, Self.path, json: ["draft": true])
            #expect(draft.status == 200, "\(draft.text)")
            #expect(try draft.decode(ImpactReport.self).forceUpdate.newlyRequired == 30)

            let created = try await app.call(
                .post, "/v1/projects/shop-app/remoteConfig/changeRequests",
                json: ["description": "raise the minimum", "template": Self.raised])
            #expect(created.status == 201, "\(created.text)")
            let name = try created.decode(ChangeRequest.self).name
            for id in [name, String(name.dropFirst("changeRequests/".count))] {
                let reply = try await app.call(.post, Self.path, json: ["changeRequest": .string(id)])
                #expect(reply.status == 200, "\(reply.text)")
                #expect(try reply.decode(ImpactReport.self).forceUpdate.newlyRequired == 30)
            }
            let missing = try await app.call(.post, Self.path, json: ["changeRequest": "999"])
            #expect(missing.status == 404)
        }
    }

    @Test func onlyRecentInstancesOfTheProjectCount() async throws {
        try await Self.sampled { app in
            try await app.createProject("other-app")
            try await InsightSampleRows.insert(
                app.database, project: "other-app",
                contexts: InsightSampleRows.fleet("o", 50, platform: "IOS", version: "2.2.1"))
            try await InsightSampleRows.insert(
                app.database, project: "shop-app",
                contexts: InsightSampleRows.fleet("old", 50, platform: "IOS", version: "2.2.1"),
                lastSeen: Date().addingTimeInterval(-10 * 24 * 3600))
            let recent = try await app.call(.post, Self.path, json: ["template": Self.raised])
            #expect(try recent.decode(ImpactReport.self).sample.instances == 100)
            let longer = try await app.call(
                .post, Self.path,
                json: ["template": Self.raised, "since": .string(RFC3339Text.daysAgo(14))])
            let longerReport = try longer.decode(ImpactReport.self)
            #expect(longerReport.sample.instances == 150)
            #expect(longerReport.forceUpdate.newlyRequired == 80)
        }
    }

    @Test func withoutASampleNothingIsEstimated() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let reply = try await app.call(.post, Self.path, json: ["template": Self.raised])
            #expect(reply.status == 200, "\(reply.text)")
            let report = try reply.decode(ImpactReport.self)
            #expect(report.sample.instances == 0)
            #expect(report.changes.isEmpty)
            #expect(report.forceUpdate.newlyRequired == 0)
        }
    }

    @Test func anInvalidCandidateIsRefusedAsAPublishRefusesIt() async throws {
        try await Self.sampled { app in
            let broken = Self.raised(conditions: [["name": "ios_too_old", "expression": "device.os == "]])
            let publish = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig?validateOnly=true", json: broken, headers: [.ifMatch: "*"])
            let impact = try await app.call(.post, Self.path, json: ["template": broken])
            #expect(publish.status == 400)
            #expect(impact.status == 400)
            #expect(try impact.decode(ErrorBody.self) == (try publish.decode(ErrorBody.self)), "\(impact.text)")
        }
    }

    @Test func aBadBodyIsRefusedNamingTheField() async throws {
        try await Self.sampled { app in
            let cases: [(JSONValue, String, String)] = [
                ([:], "template", "REQUIRED"),
                (["template": Self.raised, "draft": true], "draft", "CONFLICTING_FIELDS"),
                (["template": "x"], "template", "NOT_AN_OBJECT"),
                (["draft": false], "draft", "NOT_TRUE"),
                (["changeRequest": "twelve"], "changeRequest", "INVALID_CHANGE_REQUEST"),
                (["changeRequest": 12], "changeRequest", "NOT_A_STRING"),
                (["draft": true, "since": "yesterday"], "since", "INVALID_TIME"),
                (["draft": true, "forceUpdateParameter": ""], "forceUpdateParameter", "NOT_A_STRING"),
                (["draft": true, "sample": 5], "sample", "UNKNOWN_FIELD"),
            ]
            for (body, field, reason) in cases {
                let reply = try await app.call(.post, Self.path, json: body)
                #expect(reply.status == 400, "\(body): \(reply.text)")
                #expect(reply.errorFields == [field], "\(body): \(reply.text)")
                #expect(reply.errorReasons == [reason], "\(body): \(reply.text)")
            }
        }
    }

    @Test func aKeyForAnotherProjectSeesNothing() async throws {
        try await Self.sampled { app in
            try await app.createProject("other-app")
            let other = try await app.createKey(role: "viewer", project: "other-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            let refused = try await app.call(.post, Self.path, token: other.secret, json: ["draft": true])
            #expect(refused.status == 403, "\(refused.text)")
            let clientReply = try await app.call(.post, Self.path, token: client.secret, json: ["draft": true])
            #expect(clientReply.status == 401 || clientReply.status == 403, "\(clientReply.text)")
        }
    }
}

/// RFC 3339 times for request bodies.
enum RFC3339Text {
    static func daysAgo(_ days: Double) -> String {
        Date.ISO8601FormatStyle().format(Date().addingTimeInterval(-days * 24 * 3600))
    }
}
