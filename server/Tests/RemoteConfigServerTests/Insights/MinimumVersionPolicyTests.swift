import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// `minimumVersionPolicy`: the server raises the minimum by itself, only upward and within the team's limits, as
/// a change request or a publish, and says what every check found.
@Suite struct MinimumVersionPolicyTests {
    static let path = "/v1/projects/shop-app/minimumVersionPolicy"

    /// The minimum at 1.9.0 by default and for iOS, the latest version 2.2.0.
    static func template(minimum: String = "1.9.0", latest: String = "2.2.0") -> JSONValue {
        [
            "conditions": [["name": "ios", "expression": "device.os == 'ios'"]],
            "parameters": [
                "min_supported_version": [
                    "defaultValue": ["value": .string(minimum)], "valueType": "STRING",
                    "conditionalValues": ["ios": ["value": .string(minimum)]],
                ],
                "current_version": ["defaultValue": ["value": .string(latest)], "valueType": "STRING"],
                "require_force_update": ["defaultValue": ["value": "false"], "valueType": "BOOLEAN"],
            ],
        ]
    }

    /// A project with the template and a week of iOS history in which 1.9.0 is 1% and 2.0.0 9% of 1,000.
    static func setUp(_ app: TestApp.Session, createProject: Bool = true) async throws {
        if createProject { try await app.createProject("shop-app") }
        try SetupFailure.unless(try await app.publish("shop-app", template()).status == 200, "publish")
        let imported = try await InsightsImportTests.post(app, "shop-app", InsightsImportTests.week())
        try SetupFailure.unless(imported.status == 200, imported.text)
    }

    static func policy(_ app: TestApp.Session) async throws -> MinimumVersionPolicy {
        let reply = try await app.call(.get, path)
        try SetupFailure.unless(reply.status == 200, reply.text)
        return try reply.decode(MinimumVersionPolicy.self)
    }

    /// Saves `body` and waits for the check it makes due, after `checkedBefore`; returns the policy after it.
    static func saveAndCheck(_ app: TestApp.Session, _ body: JSONValue) async throws -> MinimumVersionPolicy {
        let before = try await policy(app).lastCheckTime
        let saved = try await app.call(.put, path, json: body)
        try SetupFailure.unless(saved.status == 200, saved.text)
        var checked = try await policy(app)
        let found = try await Workflow.eventually(.seconds(20)) {
            checked = try await policy(app)
            return checked.lastCheckTime != nil && checked.lastCheckTime != before
        }
        try SetupFailure.unless(found, "no check after the save: \(checked)")
        return checked
    }

    static func minimum(_ app: TestApp.Session, condition: String? = nil) async throws -> String? {
        let parameter = try await app.call(.get, "/v1/projects/shop-app/remoteConfig").value["parameters"]?[
            "min_supported_version"]
        if let condition { return parameter?["conditionalValues"]?[condition]?["value"]?.stringValue }
        return parameter?["defaultValue"]?["value"]?.stringValue
    }

    static func audit(_ app: TestApp.Session, _ action: String) async throws -> [JSONValue] {
        let entries = try await app.call(.get, "/v1/projects/shop-app/auditLog").value["events"]?.arrayValue ?? []
        return entries.filter { $0["action"]?.stringValue == action }
    }

    @Test func aBadPolicyIsRefusedWithItsFieldsAndNothingIsSaved() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            try await app.createProject("shop-app")
            #expect(try await Self.policy(app).enabled == false, "a project without a policy reads as one switched off")
            // Nothing published yet: the parameter is not there.
            let unpublished = try await app.call(.put, Self.path, json: ["platform": "IOS"])
            #expect(unpublished.status == 400)
            #expect(unpublished.value["error"]?["details"]?[0]?["field"] == "parameter", "\(unpublished.text)")
            try await Self.setUp(app, createProject: false)
            let cases: [(body: JSONValue, field: String)] = [
                (["platform": "BLACKBERRY"], "platform"),
                ([:], "platform"),
                (["platform": "IOS", "maxBlockedShare": 1.5], "maxBlockedShare"),
                (["platform": "IOS", "minActiveInstances": -1], "minActiveInstances"),
                (["platform": "IOS", "checkIntervalSeconds": 5], "checkIntervalSeconds"),
                (["platform": "IOS", "action": "MERGE"], "action"),
                (["platform": "IOS", "keepBehindLatest": 1.5], "keepBehindLatest"),
                (["platform": "IOS", "parameter": "missing"], "parameter"),
                (["platform": "IOS", "parameter": "require_force_update"], "parameter"),
                (["platform": "IOS", "neverAbove": "missing"], "neverAbove"),
                (["platform": "IOS", "condition": "android"], "condition"),
                (["platform": "IOS", "color": "red"], "color"),
            ]
            for (body, field) in cases {
                let reply = try await app.call(.put, Self.path, json: body)
                #expect(reply.status == 400, "\(body)")
                let fields = reply.value["error"]?["details"]?.arrayValue?.compactMap { $0["field"]?.stringValue }
                #expect(fields?.contains(field) == true, "\(body): \(reply.text)")
            }
            // Publishing by itself is refused while the project requires approval.
            try await Workflow.requireApproval(app, true)
            let publish = try await app.call(.put, Self.path, json: ["platform": "IOS", "action": "PUBLISH"])
            #expect(publish.status == 400)
            #expect(publish.value["error"]?["details"]?[0]?["reason"] == "APPROVAL_REQUIRED", "\(publish.text)")
            #expect(try await Self.policy(app).enabled == false, "a refused policy is not kept")
            #expect(try await Self.audit(app, "minimumVersionPolicy.update").isEmpty)
        }
    }

    @Test func aPublishingPolicyRaisesTheMinimumOnceWithItsFigures() async throws {
        try await WebhookReceiver.run { receiver in
            try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.fast) { app in
                _ = try await WebhookFixture.setUp(app, url: receiver.url, events: ["template.published"])
                try await Self.setUp(app, createProject: false)
                let body: JSONValue = [
                    "platform": "IOS", "maxBlockedShare": 0.01, "minActiveInstances": 500,
                    "neverAbove": "current_version", "action": "PUBLISH",
                ]
                let checked = try await Self.saveAndCheck(app, body)
                #expect(checked.lastResult == "RAISED", "\(checked)")
                #expect(checked.lastRecommendation == "2.0.0")
                #expect(checked.lastDetail?.contains("1.9.0 → 2.0.0 on IOS: blocks 1% (10 of 1000") == true)
                #expect(checked.enabled && checked.platform == "IOS" && checked.action == "PUBLISH")
                #expect(checked.nextCheckTime.map { $0 > Date().addingTimeInterval(86_000) } == true)
                #expect(try await Self.minimum(app) == "2.0.0")
                #expect(try await Self.minimum(app, condition: "ios") == "1.9.0", "only the default was the target")

                let versions = try await StoreSyncFixture.versions(app)
                #expect(versions.count == 2)
                #expect(versions.first?["updateOrigin"] == "VERSION_POLICY")
                #expect(versions.first?["updateUser"]?["email"] == "minimum version policy")
                #expect(versions.first?["description"]?.stringValue?.hasPrefix("Minimum version policy: ") == true)

                let raises = try await Self.audit(app, "minimumVersionPolicy.raise")
                #expect(raises.count == 1)
                let detail = raises.first?["detail"]
                #expect(detail?["from"] == "1.9.0")
                #expect(detail?["to"] == "2.0.0")
                #expect(detail?["blockedShare"] == "0.01")
                #expect(detail?["activeInstances"] == "1000")
                #expect(detail?["versionNumber"] == "2")

                // The template's first publish, then the raise.
                let received = try await receiver.waitFor(2)
                #expect(received.last?.value["type"] == "template.published")
                let data = received.last?.value["data"]
                #expect(data?["updateOrigin"] == "VERSION_POLICY")
                #expect(data?["description"]?.stringValue?.contains("blocks 1% (10 of 1000") == true)

                // Checked again: the minimum is the recommendation now, so nothing changes.
                let again = try await Self.saveAndCheck(app, body)
                #expect(again.lastResult == "UNCHANGED", "\(again)")
                #expect(try await StoreSyncFixture.versions(app).count == 2)
            }
        }
    }

    @Test func aChangeRequestPolicyProposesOnceForItsCondition() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            try await Self.setUp(app)
            try await Workflow.requireApproval(app, true)
            let body: JSONValue = ["platform": "IOS", "condition": "ios", "minActiveInstances": 500]
            let checked = try await Self.saveAndCheck(app, body)
            #expect(checked.lastResult == "PROPOSED", "\(checked)")
            #expect(checked.action == "CHANGE_REQUEST", "the default action")
            let name = try #require(checked.lastChangeRequest)
            let request = try await app.call(.get, "/v1/projects/shop-app/remoteConfig/\(name)")
            #expect(request.value["state"] == "OPEN")
            #expect(request.value["author"]?["displayName"] == "minimum version policy", "\(request.text)")
            #expect(request.value["description"]?.stringValue?.contains("(condition ios) 1.9.0 → 2.0.0") == true)
            let proposed = request.value["template"]?["parameters"]?["min_supported_version"]
            #expect(proposed?["conditionalValues"]?["ios"]?["value"] == "2.0.0")
            #expect(proposed?["defaultValue"]?["value"] == "1.9.0", "the default stays")
            #expect(try await Self.minimum(app, condition: "ios") == "1.9.0", "nothing is published")

            // Checked again while that request is open: no second one.
            let again = try await Self.saveAndCheck(app, body)
            #expect(again.lastResult == "PROPOSED")
            #expect(again.lastChangeRequest == name)
            let open = try await app.call(.get, "/v1/projects/shop-app/remoteConfig/changeRequests").value[
                "changeRequests"]
            #expect(open?.arrayValue?.count == 1, "\(String(describing: open))")
            #expect(try await Self.audit(app, "minimumVersionPolicy.raise").count == 1)
        }
    }

    @Test func limitsAndTooLittleDataRaiseNothing() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            try await Self.setUp(app)
            let few = try await Self.saveAndCheck(
                app, ["platform": "IOS", "minActiveInstances": 5000, "action": "PUBLISH"])
            #expect(few.lastResult == "NOT_ENOUGH_DATA", "\(few)")
            #expect(few.lastDetail?.contains("1000 active instances were seen") == true)

            try await app.publish("shop-app", Self.template(latest: "1.9.5"))
            let ceiling = try await Self.saveAndCheck(
                app, ["platform": "IOS", "minActiveInstances": 0, "neverAbove": "current_version", "action": "PUBLISH"])
            #expect(ceiling.lastResult == "LIMITED", "\(ceiling)")
            #expect(ceiling.lastRecommendation == "2.0.0")
            #expect(ceiling.lastDetail?.contains("current_version (1.9.5") == true)

            let behind = try await Self.saveAndCheck(
                app, ["platform": "IOS", "maxBlockedShare": 1, "keepBehindLatest": 2, "action": "PUBLISH"])
            #expect(behind.lastResult == "LIMITED", "\(behind)")

            let android = try await Self.saveAndCheck(app, ["platform": "ANDROID", "action": "PUBLISH"])
            #expect(android.lastResult == "NOT_ENOUGH_DATA", "no Android instance was seen")
            #expect(try await StoreSyncFixture.versions(app).count == 2, "nothing was raised")
            #expect(try await Self.minimum(app) == "1.9.0")
        }
    }

    @Test func twoServersProposeOnce() async throws {
        let url = try await TestClusterURL.make()
        let configure: @Sendable (inout ServerConfiguration) -> Void = { $0.schedulePollInterval = .milliseconds(50) }
        try await TestApp.run(url: url, configure: configure) { one in
            try await Self.setUp(one)
            try await TestApp.run(url: url, configure: configure) { two in
                // Saved on two, due on both: both look every 50 ms, and only the one holding the claim proposes
                // (a change request, unlike a publish, has no ETag that would refuse a second one). Each proposal
                // takes half a second to write, so the other server looks many times while one is under way.
                try await one.database.run { client in
                    _ = try await client.query(
                        """
                        CREATE FUNCTION slow_request() RETURNS trigger LANGUAGE plpgsql AS $$
                        BEGIN PERFORM pg_sleep(0.5); RETURN NEW; END $$
                        """)
                    _ = try await client.query(
                        """
                        CREATE TRIGGER slow_request BEFORE INSERT ON change_requests
                        FOR EACH ROW EXECUTE FUNCTION slow_request()
                        """)
                }
                let body: JSONValue = ["platform": "IOS", "minActiveInstances": 500]
                let checked = try await Self.saveAndCheck(two, body)
                #expect(checked.lastResult == "PROPOSED", "\(checked)")
                try await Task.sleep(for: .milliseconds(500))
                let requests = try await one.call(.get, "/v1/projects/shop-app/remoteConfig/changeRequests")
                #expect(requests.value["changeRequests"]?.arrayValue?.count == 1, "\(requests.text)")
                #expect(try await Self.audit(one, "minimumVersionPolicy.raise").count == 1)
                #expect(try await Self.policy(one).lastChangeRequest == checked.lastChangeRequest)
            }
        }
    }
}
