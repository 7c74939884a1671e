import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// `requireApproval` and `approvalsRequired`: changed by admins only, audited, and while on, no publish
/// but an approved change request's goes through, whatever the key's role.
@Suite struct ProjectSettingsTests {
    @Test func settingsArePatchedByAnAdminCheckedAndAudited() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let created = try await app.admin.project("shop-app")
            #expect(created.requireApproval == false)
            #expect(created.approvalsRequired == 1)
            let editor = try await app.createKey(role: "editor", project: "shop-app")
            let refused = try await app.call(
                .patch, "/v1/projects/shop-app", token: editor.secret, json: ["requireApproval": true])
            #expect(refused.status == 403)

            let bad: [(JSONValue, String, String)] = [
                (["approvalsRequired": 0], "approvalsRequired", "OUT_OF_RANGE"),
                (["approvalsRequired": 11], "approvalsRequired", "OUT_OF_RANGE"),
                (["approvalsRequired": 1.5], "approvalsRequired", "OUT_OF_RANGE"),
                (["approvalsRequired": "2"], "approvalsRequired", "NOT_A_NUMBER"),
                (["requireApproval": "yes"], "requireApproval", "NOT_A_BOOLEAN"),
                (["requireApproval": true, "projectId": "other"], "projectId", "UNKNOWN_FIELD"),
                ([:], "body", "REQUIRED"),
            ]
            for (body, field, reason) in bad {
                let reply = try await app.call(.patch, "/v1/projects/shop-app", json: body)
                #expect(reply.status == 400, "\(body.jsonString)")
                #expect(reply.errorFields == [field], "\(body.jsonString)")
                #expect(reply.errorReasons == [reason], "\(body.jsonString)")
            }
            #expect(try await app.admin.project("shop-app").requireApproval == false)

            let admin = try await app.createKey(role: "admin", project: "shop-app")
            let patched = try await app.admin.with(token: admin.secret).updateProject(
                "shop-app", UpdateProjectRequest(requireApproval: true, approvalsRequired: 2))
            #expect(patched.requireApproval == true)
            #expect(patched.approvalsRequired == 2)
            #expect(patched.displayName == "SHOP-APP")
            #expect(try await app.admin.listProjects().projects == [patched])

            let event = try #require(try await Workflow.events(app).first)
            #expect(event["action"] == "project.update")
            #expect(event["actorKey"] == .string("apiKeys/\(admin.id)"))
            #expect(event["detail"]?["requireApproval"] == "true")
            #expect(event["detail"]?["approvalsRequired"] == "2")
            #expect(
                try await app.call(.patch, "/v1/projects/no-such-app", json: ["requireApproval": true]).status == 404)
        }
    }

    @Test func whileApprovalIsRequiredEveryOtherPublishIsRefusedForEveryRole() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            try await Workflow.requireApproval(app, true)
            let editor = try await app.createKey(role: "editor", project: "shop-app").secret
            let draftPath = "/v1/projects/shop-app/remoteConfig/draft"
            let saved = try await app.call(
                .put, draftPath, json: TemplateFixtures.forceUpdateValue(currentVersion: "2.4.0"),
                headers: [.ifMatch: "*"])
            #expect(saved.status == 200, "drafts are still saved")
            let draftETag = try #require(saved.headers[.eTag])
            for token in [TestApp.adminToken, editor] {
                let put = try await app.call(
                    .put, "/v1/projects/shop-app/remoteConfig", token: token,
                    json: TemplateFixtures.forceUpdateValue(currentVersion: "9.0.0"), headers: [.ifMatch: "*"])
                let rollback = try await app.call(
                    .post, "/v1/projects/shop-app/remoteConfig:rollback", token: token, json: ["versionNumber": "1"])
                let draft = try await app.call(
                    .post, draftPath + ":publish", token: token, json: [:], headers: [.ifMatch: draftETag])
                for reply in [put, rollback, draft] {
                    #expect(reply.status == 403, "\(reply.text)")
                    #expect(reply.errorStatus == "PERMISSION_DENIED")
                    #expect(reply.errorReasons == ["APPROVAL_REQUIRED"])
                }
            }
            let dryRun = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig?validateOnly=true",
                json: TemplateFixtures.forceUpdateValue(currentVersion: "9.0.0"), headers: [.ifMatch: "*"])
            #expect(dryRun.status == 200, "a dry run publishes nothing, so it is allowed")
            #expect(try await Workflow.versions(app).count == 1)
            #expect(try await app.call(.get, draftPath).headers[.eTag] == draftETag, "the draft is kept")

            try await Workflow.requireApproval(app, false)
            #expect(
                try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "9.0.0")).status
                    == 200)
        }
    }
}
