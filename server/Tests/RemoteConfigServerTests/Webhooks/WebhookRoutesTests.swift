import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// The webhook routes: admin only, the secret shown once, bad input refused naming the field.
@Suite struct WebhookRoutesTests {
    static let collection = WebhookFixture.collection

    @Test func anAdminCreatesListsChangesAndDeletesAWebhookAndSeesTheSecretOnlyAtCreation() async throws {
        try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.allowPrivate) {
            app in
            try await app.createProject(WebhookFixture.project)
            let project = WebhookFixture.project
            let created = try await app.admin.createWebhook(
                project,
                WebhookRequest(url: "https://hooks.example.com/rc", events: ["template.published"], description: "CI"))
            #expect(created.name.hasPrefix("webhooks/"))
            #expect(created.secret?.hasPrefix("whsec_") == true)
            #expect(created.format == "JSON")
            #expect(created.enabled == true)
            #expect(created.events == ["template.published"])
            #expect(abs(created.createTime.timeIntervalSinceNow) < 60)

            let listed = try await app.call(.get, Self.collection)
            let webhooks = try listed.decode(WebhookList.self).webhooks
            #expect(webhooks.count == 1)
            #expect(webhooks[0].secret == nil)
            #expect(!listed.text.contains("whsec_"))
            let id = created.id
            var expected = created
            expected.secret = nil
            #expect(try await app.admin.webhook(project, id) == expected)

            let patched = try await app.admin.updateWebhook(
                project, id, WebhookRequest(events: ["*"], format: "SLACK", enabled: false))
            #expect(patched.enabled == false)
            #expect(patched.format == "SLACK")
            #expect(patched.url == "https://hooks.example.com/rc")
            #expect(patched.secret == nil)

            let rotated = try await app.admin.rotateWebhookSecret(project, id)
            let secret = try #require(rotated.secret)
            #expect(secret.hasPrefix("whsec_") && secret != created.secret)

            #expect(try await app.call(.delete, "\(Self.collection)/\(id)").status == 200)
            #expect(try await app.call(.get, "\(Self.collection)/\(id)").status == 404)
            #expect(try await app.call(.delete, "\(Self.collection)/\(id)").status == 404)
            #expect(try await app.call(.post, "\(Self.collection)/\(id):test").status == 404)
        }
    }

    @Test func badInputIsA400NamingTheFieldAndCreatesNothing() async throws {
        try await TestApp.run(url: try await TestClusterURL.make(), configure: WebhookFixture.allowPrivate) {
            app in
            try await app.createProject(WebhookFixture.project)
            let cases: [(JSONValue, String)] = [
                (["events": ["*"]], "url"),
                (["url": "ftp://hooks.example.com/rc", "events": ["*"]], "url"),
                (["url": "not a url", "events": ["*"]], "url"),
                (["url": "https://hooks.example.com/rc"], "events"),
                (["url": "https://hooks.example.com/rc", "events": []], "events"),
                (["url": "https://hooks.example.com/rc", "events": ["template.deleted"]], "events[0]"),
                (["url": "https://hooks.example.com/rc", "events": ["*", 5]], "events[1]"),
                (["url": "https://hooks.example.com/rc", "events": "*"], "events"),
                (["url": "https://hooks.example.com/rc", "events": ["*"], "format": "XML"], "format"),
                (["url": "https://hooks.example.com/rc", "events": ["*"], "colour": "red"], "colour"),
                (["url": "https://hooks.example.com/rc", "events": ["*"], "description": 3], "description"),
            ]
            for (body, field) in cases {
                let reply = try await app.call(.post, Self.collection, json: body)
                #expect(reply.status == 400, "\(body): \(reply.text)")
                #expect(reply.errorStatus == "INVALID_ARGUMENT")
                #expect(reply.errorFields == [field], "\(body): \(reply.text)")
            }
            #expect(try await app.admin.listWebhooks(WebhookFixture.project).webhooks.isEmpty)
            #expect(try await app.call(.post, "/v1/projects/nope-app/webhooks", json: cases[0].0).status == 404)
        }
    }

    @Test func onlyAnAdminReachesWebhooks() async throws {
        try await TestApp.run { app in
            try await app.createProject(WebhookFixture.project)
            let editor = try await app.createKey(role: "editor", project: WebhookFixture.project)
            let viewer = try await app.createKey(role: "viewer", project: WebhookFixture.project)
            for token in [editor.secret, viewer.secret] {
                #expect(try await app.call(.get, Self.collection, token: token).status == 403)
                let created = try await app.call(
                    .post, Self.collection, token: token,
                    body: WebhookRequest(url: "https://hooks.example.com/rc", events: ["*"]))
                #expect(created.status == 403)
            }
            #expect(try await app.call(.get, Self.collection, token: nil).status == 401)
        }
    }

    /// Without `--webhooks-allow-private`, destinations on this machine or a private network are refused.
    @Test func withoutTheFlagLoopbackPrivateLinkLocalMulticastAndUnspecifiedURLsAreRefused() async throws {
        try await TestApp.run { app in
            try await app.createProject(WebhookFixture.project)
            for url in [
                "http://127.0.0.1:8080/hook", "http://localhost/hook", "http://10.1.2.3/hook", "http://192.168.0.10/",
                "http://172.16.5.4/", "http://169.254.169.254/latest/meta-data", "http://224.0.0.1/",
                "http://0.0.0.0/", "http://[::1]/hook", "http://[fe80::1]/", "http://[fd00::1]/",
                "http://[::ffff:127.0.0.1]/",
            ] {
                let reply = try await app.call(.post, Self.collection, body: WebhookRequest(url: url, events: ["*"]))
                #expect(reply.status == 400, "\(url): \(reply.text)")
                #expect(reply.errorFields == ["url"], "\(url)")
            }
            let publicURL = try await app.call(
                .post, Self.collection, body: WebhookRequest(url: "https://hooks.example.com/rc", events: ["*"]))
            #expect(publicURL.status == 201)
            let id = try publicURL.decode(Webhook.self).id
            let patched = try await app.call(
                .patch, "\(Self.collection)/\(id)", body: WebhookRequest(url: "http://127.0.0.1/"))
            #expect(patched.status == 400)
            #expect(patched.errorFields == ["url"])
        }
    }
}
