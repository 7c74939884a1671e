import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// Change requests: opened from a template, the draft or a rollback, validated then, reviewed by other keys,
/// published through the one publish path as an immutable snapshot.
@Suite struct ChangeRequestTests {
    @Test func aChangeRequestIsValidatedAtCreationAsAPublishIs() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            var object = try #require(TemplateFixtures.forceUpdateValue().objectValue)
            object["parameters"] = ["flag": ["defaultValue": ["value": "maybe"], "valueType": "BOOLEAN"]]
            let bad = JSONValue.object(object)
            let refused = try await Workflow.create(app, ["description": "bad", "template": bad])
            #expect(refused.status == 400)
            #expect(refused.errorFields == ["template.parameters.flag.defaultValue.value"])
            let asPublish = try await app.publish("shop-app", bad)
            #expect(asPublish.errorReasons == refused.errorReasons, "the same rule as a publish")
            let unknownCondition = try await Workflow.create(
                app,
                [
                    "template": [
                        "parameters": [
                            "x": ["defaultValue": ["value": "1"], "conditionalValues": ["nope": ["value": "2"]]]
                        ]
                    ]
                ])
            #expect(unknownCondition.errorReasons == ["UNKNOWN_CONDITION_REFERENCE"])
            for (body, field, reason) in [
                (["template": "text"], "template", "NOT_AN_OBJECT"),
                (["template": [:], "rollbackSource": "1"], "rollbackSource", "CONFLICTING_FIELDS"),
                (["template": [:], "publishTime": "tomorrow"], "publishTime", "INVALID_TIME"),
                (["template": [:], "owner": "me"], "owner", "UNKNOWN_FIELD"),
            ] as [(JSONValue, String, String)] {
                let reply = try await Workflow.create(app, body)
                #expect(reply.status == 400, "\(body.jsonString)")
                #expect(reply.errorFields == [field], "\(body.jsonString)")
                #expect(reply.errorReasons == [reason], "\(body.jsonString)")
            }
            let list = try await app.call(.get, Workflow.base)
            #expect(try list.changeRequests.changeRequests.isEmpty, "nothing was stored")
        }
    }

    @Test func approvalsFromOtherKeysThenAPublishThatRecordsTheChangeRequest() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            try await Workflow.requireApproval(app, true, approvals: 2)
            let author = try await app.createKey(role: "editor", project: "shop-app")
            // Another person: a key with the author's display name would count as the author.
            let reviewer = try await app.createKey(role: "editor", project: "shop-app", name: "reviewer")
            let viewer = try await app.createKey(role: "viewer", project: "shop-app")
            // A second reviewer: a sibling of the author's key (the key that made the author's key counts as the
            // author).
            let another = try await app.createKey(role: "editor", project: "shop-app", name: "second reviewer")

            let created = try await Workflow.create(
                app, token: author.secret,
                ["description": "ship 3.0", "template": TemplateFixtures.forceUpdateValue(currentVersion: "3.0.0")])
            #expect(created.status == 201, "\(created.text)")
            #expect(try created.changeRequest.state == "OPEN")
            #expect(try created.changeRequest.baseVersionNumber == "1")
            #expect(created.value["publishTime"] == .null)
            #expect(created.value["publishedVersionNumber"] == .null)
            #expect(
                try created.changeRequest.author == ActingKey(key: "apiKeys/\(author.id)", displayName: "editor key"))
            let id = Workflow.id(created)

            let byViewer = try await Workflow.act(app, id, "approve", token: viewer.secret)
            #expect(byViewer.status == 403)
            let own = try await Workflow.act(app, id, "approve", token: author.secret)
            #expect(own.status == 403)
            #expect(own.errorReasons == ["SELF_APPROVAL"])
            let first = try await Workflow.act(
                app, id, "approve", token: reviewer.secret, json: ["comment": "looks right"])
            #expect(first.status == 200)
            #expect(try first.changeRequest.state == "OPEN", "one of two approvals")
            let twice = try await Workflow.act(app, id, "approve", token: reviewer.secret)
            #expect(twice.status == 409)
            #expect(twice.errorReasons == ["ALREADY_APPROVED"])
            let early = try await Workflow.act(app, id, "publish", token: author.secret)
            #expect(early.status == 403)
            #expect(early.errorReasons == ["APPROVAL_REQUIRED"])
            let forcedEarly = try await Workflow.act(app, id, "publish", query: "?force=true")
            #expect(forcedEarly.status == 403, "force does not skip approvals")

            let second = try await Workflow.act(app, id, "approve", token: another.secret)
            #expect(try second.changeRequest.state == "APPROVED")
            let approvals = try second.changeRequest.approvals
            #expect(approvals.count == 2 && approvals.first?.key == "apiKeys/\(reviewer.id)")
            #expect(approvals.first?.comment == "looks right")
            #expect(approvals.first?.displayName == "reviewer")

            let published = try await Workflow.act(app, id, "publish", token: author.secret)
            #expect(published.status == 200, "\(published.text)")
            #expect(try published.changeRequest.state == "PUBLISHED")
            #expect(try published.changeRequest.publishedVersionNumber == "2")
            let template = try await app.call(.get, "/v1/projects/shop-app/remoteConfig")
            let version = template.value["version"]
            #expect(version?["versionNumber"] == "2")
            #expect(version?["updateOrigin"] == "CHANGE_REQUEST")
            #expect(version?["updateType"] == "INCREMENTAL_UPDATE")
            #expect(version?["description"] == "ship 3.0")
            #expect(template.text.contains("3.0.0"))

            for action in ["approve", "reject", "cancel", "publish"] {
                let late = try await Workflow.act(app, id, action)
                #expect(late.status == 409, "\(action) after publishing")
                #expect(late.errorStatus == "ABORTED")
                #expect(late.errorReasons == ["INVALID_STATE"])
            }
            #expect(try await Workflow.versions(app).count == 2)

            let events = try await Workflow.events(app)
            let actions = events.prefix(5).map { $0["action"]?.stringValue ?? "" }
            #expect(
                actions == [
                    "changeRequest.publish", "template.publish", "changeRequest.approve", "changeRequest.approve",
                    "changeRequest.create",
                ])
            #expect(events.prefix(5).allSatisfy { $0["actorKey"]?.stringValue?.hasPrefix("apiKeys/") == true })
            #expect(events[1]["detail"]?["changeRequest"] == .string("changeRequests/\(id)"))
        }
    }

    @Test func aChangeRequestIsASnapshotOfTheDraftItWasOpenedFrom() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let draftPath = "/v1/projects/shop-app/remoteConfig/draft"
            let saved = try await app.call(
                .put, draftPath, json: TemplateFixtures.forceUpdateValue(currentVersion: "2.5.0"),
                headers: [.ifMatch: "*"])
            let etag = try #require(saved.headers[.eTag])
            let missing = try await Workflow.create(app, ["description": "from the draft"])
            #expect(missing.status == 428)
            let created = try await Workflow.create(app, ["description": "from the draft"], ifMatch: etag)
            #expect(created.status == 201, "\(created.text)")
            #expect(try created.changeRequest.baseVersionNumber == "1")
            let id = Workflow.id(created)
            let edited = try await app.call(
                .put, draftPath, json: TemplateFixtures.forceUpdateValue(currentVersion: "9.9.9"),
                headers: [.ifMatch: etag])
            #expect(edited.status == 200)
            let stale = try await Workflow.create(app, ["description": "stale"], ifMatch: etag)
            #expect(stale.status == 412)

            let read = try await Workflow.get(app, id)
            #expect(read.text.contains("2.5.0") && !read.text.contains("9.9.9"))
            let diff = try #require(try read.changeRequest.diff)
            #expect(diff["from"] == "1")
            #expect(diff["to"] == .string("changeRequests/\(id)"))
            let changed = diff["parameters"]?["changed"]?.arrayValue
            #expect(changed?.map { $0["name"] } == ["current_version"])

            // No approval required: an open request may be published directly.
            let published = try await Workflow.act(app, id, "publish")
            #expect(published.status == 200, "\(published.text)")
            let template = try await app.call(.get, "/v1/projects/shop-app/remoteConfig")
            #expect(template.text.contains("2.5.0") && !template.text.contains("9.9.9"))
            #expect(try await app.call(.get, draftPath).text.contains("9.9.9"), "the draft is left as it is")
        }
    }

    @Test func publishingOverALaterVersionNeedsForce() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let id = try await Workflow.propose(app)
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "2.4.0"))
            let refused = try await Workflow.act(app, id, "publish")
            #expect(refused.status == 409)
            #expect(refused.errorStatus == "ABORTED")
            #expect(refused.errorReasons == ["BASE_VERSION_CHANGED"])
            #expect(try await Workflow.get(app, id).changeRequest.state == "OPEN")
            let forced = try await Workflow.act(app, id, "publish", query: "?force=true")
            #expect(forced.status == 200)
            #expect(try await Workflow.versions(app).first?["updateType"] == "FORCED_UPDATE")
        }
    }

    @Test func rejectAndCancelCloseARequestForGood() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let author = try await app.createKey(role: "editor", project: "shop-app")
            let other = try await app.createKey(role: "editor", project: "shop-app")
            let rejectedID = try await Workflow.propose(app, token: author.secret)
            let rejected = try await Workflow.act(
                app, rejectedID, "reject", token: other.secret, json: ["comment": "not before Monday"])
            #expect(rejected.status == 200)
            #expect(try rejected.changeRequest.state == "REJECTED")
            let rejection = try rejected.changeRequest.rejection
            #expect(rejection?.key == "apiKeys/\(other.id)")
            #expect(rejection?.comment == "not before Monday")
            #expect(try await Workflow.act(app, rejectedID, "publish").errorReasons == ["INVALID_STATE"])

            let id = try await Workflow.propose(app, token: author.secret)
            let byOther = try await Workflow.act(app, id, "cancel", token: other.secret)
            #expect(byOther.status == 403)
            #expect(byOther.errorReasons == ["NOT_AUTHOR"])
            let cancelled = try await Workflow.act(app, id, "cancel", token: author.secret)
            #expect(cancelled.status == 200)
            #expect(try cancelled.changeRequest.state == "CANCELLED")
            #expect(try cancelled.changeRequest.cancellation?.key == "apiKeys/\(author.id)")
            let byAdmin = try await Workflow.act(app, try await Workflow.propose(app, token: author.secret), "cancel")
            #expect(try byAdmin.changeRequest.state == "CANCELLED", "an admin may cancel anyone's")
            #expect(try await Workflow.versions(app).isEmpty)
            let actions = try await Workflow.events(app).prefix(3).map { $0["action"]?.stringValue ?? "" }
            #expect(actions == ["changeRequest.cancel", "changeRequest.create", "changeRequest.cancel"])
        }
    }

    @Test func listingIsNewestFirstFilteredAndPaged() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            var ids: [String] = []
            for number in 1...3 { ids.append(try await Workflow.propose(app, currentVersion: "3.0.\(number)")) }
            try await Workflow.act(app, ids[1], "cancel")
            let all = try await app.call(.get, Workflow.base)
            let listed = try all.changeRequests.changeRequests
            #expect(listed.map(\.id) == ids.reversed())
            #expect(listed.allSatisfy { $0.template == nil }, "a listing leaves templates out")
            let open = try await app.call(.get, Workflow.base + "?state=OPEN")
            #expect(try open.changeRequests.changeRequests.count == 2)
            let page = try await app.call(.get, Workflow.base + "?pageSize=2").changeRequests
            #expect(page.changeRequests.count == 2)
            let token = try #require(page.nextPageToken)
            let rest = try await app.call(.get, Workflow.base + "?pageSize=2&pageToken=\(token)").changeRequests
            #expect(rest.changeRequests.first?.id == ids[0])
            #expect(rest.nextPageToken == nil)
            #expect(try await app.call(.get, Workflow.base + "?state=DONE").errorReasons == ["INVALID_STATE"])
            #expect(try await app.call(.get, Workflow.base + "?pageSize=0").status == 400)
            #expect(try await Workflow.get(app, "999").status == 404)
            #expect(try await Workflow.get(app, "abc").status == 404)
            #expect(try await Workflow.act(app, "999", "approve").status == 404)
            let wrongMethod = try await app.call(.get, "\(Workflow.base)/\(ids[0]):approve")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.headers[.allow] == "POST")
        }
    }

    @Test func aRollbackCanBeProposed() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "2.4.0"))
            let unknown = try await Workflow.create(app, ["rollbackSource": "7"])
            #expect(unknown.status == 404)
            #expect(unknown.errorFields == ["rollbackSource"])
            let created = try await Workflow.create(app, ["description": "back to 1", "rollbackSource": 1])
            #expect(created.status == 201, "\(created.text)")
            #expect(try created.changeRequest.rollbackSource == "1")
            #expect(try created.changeRequest.baseVersionNumber == "2")
            let published = try await Workflow.act(app, Workflow.id(created), "publish")
            #expect(try published.changeRequest.publishedVersionNumber == "3")
            let version = try #require(try await Workflow.versions(app).first)
            #expect(version["updateType"] == "ROLLBACK")
            #expect(version["rollbackSource"] == "1")
            #expect(version["updateOrigin"] == "CHANGE_REQUEST")
        }
    }

    /// What a store sync will do: open a request through `ChangeRequestStore.create` as the server, approved at
    /// once, and publish it through the same path.
    @Test func serverCodeOpensAndPublishesARequestThroughTheStore() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await Workflow.requireApproval(app, true, approvals: 2)
            let store = ChangeRequestStore(database: app.database)
            let server = AuditActor(keyId: nil, displayName: "store sync")
            let template = #"{"parameters":{"current_version":{"defaultValue":{"value":"4.1.0"}}}}"#
            let open = try await store.create(
                "shop-app", ChangeRequestProposal(templateJSON: template, description: "App Store 4.1.0"),
                actor: server)
            #expect(open.state == .open)
            let approved = try await store.create(
                "shop-app",
                ChangeRequestProposal(templateJSON: template, description: "App Store 4.1.0", autoApproved: true),
                actor: server)
            #expect(approved.state == .approved)
            let read = try await Workflow.get(app, String(approved.id))
            #expect(try read.changeRequest.autoApproved == true)
            #expect(try read.changeRequest.author.key == nil)
            #expect(read.text.contains(#""author":{"key":null"#), "the server's own actions name no key, as null")
            let done = try await store.publish("shop-app", approved.id, force: false, actor: server)
            #expect(done.version.versionNumber == 1)
            #expect(done.version.updateOrigin.rawValue == "CHANGE_REQUEST")
            let event = try #require(try await Workflow.events(app).first)
            #expect(event["action"] == "changeRequest.publish")
            #expect(event["actor"]?["displayName"] == "store sync")
        }
    }

    @Test func raisingTheRequiredApprovalsReopensAnApprovedRequest() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await Workflow.requireApproval(app, true)
            let author = try await app.createKey(role: "editor", project: "shop-app")
            let reviewer = try await app.createKey(role: "editor", project: "shop-app", name: "reviewer")
            let id = try await Workflow.propose(app, token: author.secret)
            #expect(
                try await Workflow.act(app, id, "approve", token: reviewer.secret).changeRequest.state == "APPROVED")
            try await Workflow.requireApproval(app, true, approvals: 2)
            #expect(try await Workflow.get(app, id).changeRequest.state == "OPEN")
            #expect(try await Workflow.act(app, id, "publish").errorReasons == ["APPROVAL_REQUIRED"])
            try await Workflow.requireApproval(app, true, approvals: 1)
            #expect(try await Workflow.get(app, id).changeRequest.state == "APPROVED")
        }
    }
}
