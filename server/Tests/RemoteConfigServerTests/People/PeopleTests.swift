import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// People through sessions: roles from bindings on every call, CSRF on cookie writes, the lifetimes of a
/// session, keys capped by their owner, and four eyes that means two people.
@Suite struct PeopleTests {
    static let template: JSONValue = ["parameters": ["greeting": ["defaultValue": ["value": "hello"]]]]

    @Test func aPersonsRolesComeFromBindingsOnEveryCall() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.createProject("other-app")
            let bob = try await Person.signIn(app, email: "bob@example.com", groups: ["platform"])
            let me = try await bob.call(.get, "/v1/me")
            #expect(me.status == 200 && me.value["roles"] == [], "\(me.text)")
            #expect(me.value["user"]?["email"] == "bob@example.com" && me.value["csrfToken"]?.stringValue == bob.csrf)
            #expect(try await bob.call(.get, "/v1/projects/shop-app").status == 403)

            let binding = try await bind(app, "group:platform", "editor", "shop-app")
            #expect(try await bob.call(.get, "/v1/projects/shop-app").status == 200)
            #expect(try await bob.call(.get, "/v1/projects/other-app").status == 403)
            let listed = try await bob.call(.get, "/v1/projects")
            #expect(listed.value["projects"]?.arrayValue?.compactMap { $0["projectId"]?.stringValue } == ["shop-app"])
            let published = try await bob.call(
                .put, "/v1/projects/shop-app/remoteConfig", json: Self.template, headers: [.ifMatch: "*"])
            #expect(published.status == 200, "\(published.text)")
            #expect(published.value["version"]?["updateUser"]?["email"] == "bob@example.com")
            let log = try await app.call(.get, "/v1/projects/shop-app/auditLog")
            let entry = try #require(log.value["events"]?.arrayValue?.first)
            #expect(entry["actor"]?["user"]?.stringValue == "users/\(bob.user.id)")
            #expect(entry["actor"]?["email"] == "bob@example.com" && entry["actor"]?["key"] == .null)

            // Removing the binding takes the role away for the very next call.
            let removed = try await app.call(.delete, "/v1/\(binding)")
            #expect(removed.status == 200)
            #expect(try await bob.call(.get, "/v1/projects/shop-app").status == 403)
        }
    }

    @Test func anUnverifiedEmailCountsForNoBinding() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            _ = try await bind(app, "domain:example.com", "viewer", nil)
            _ = try await bind(app, "carol@example.com", "admin", nil)
            let carol = try await Person.signIn(app, email: "carol@example.com", verified: false)
            #expect(try await carol.call(.get, "/v1/projects/shop-app").status == 403)
            let dave = try await Person.signIn(app, email: "dave@EXAMPLE.com")
            #expect(try await dave.call(.get, "/v1/projects/shop-app").status == 200, "domains compare without case")
            #expect(try await dave.call(.post, "/v1/projects", json: ["projectId": "new-app"]).status == 403)
        }
    }

    @Test func cookieWritesNeedTheCSRFTokenAndAMatchingOrigin() async throws {
        try await TestApp.run { app in
            _ = try await bind(app, "alice@example.com", "admin", nil)
            let alice = try await Person.signIn(app, email: "alice@example.com")
            let attempts: [(String??, HTTPFields, String)] = [
                (.some(nil), [:], "no token"), (.some("forged"), [:], "a wrong token"),
                (.none, [.origin: "https://evil.example"], "another origin"),
            ]
            for (index, (csrf, headers, what)) in attempts.enumerated() {
                let reply = try await alice.call(
                    .post, "/v1/projects", json: ["projectId": .string("app-\(index)")], csrf: csrf, headers: headers)
                #expect(reply.status == 403 && reply.errorReasons == ["CSRF"], "\(what): \(reply.text)")
            }
            #expect(try await app.call(.get, "/v1/projects").value["projects"] == [], "nothing was created")
            let made = try await alice.call(.post, "/v1/projects", json: ["projectId": "shop-app"])
            #expect(made.status == 201, "\(made.text)")
            // A bearer key needs no CSRF token: a browser never sends one by itself.
            #expect(try await app.call(.post, "/v1/projects", json: ["projectId": "key-app"]).status == 201)
        }
    }

    @Test func sessionsEndAtSignOutRevocationAndTheirLifetimes() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        @Sendable func idleAfterTwoSeconds(_ configuration: inout ServerConfiguration) {
            configuration.sessionIdleTimeout = .seconds(2)
        }
        try await TestApp.run(url: url, configure: idleAfterTwoSeconds) { app in
            _ = try await bind(app, "erin@example.com", "viewer", nil)
            let signedOut = try await Person.signIn(app, email: "erin@example.com")
            #expect(try await signedOut.call(.post, "/console/auth/logout", json: [:]).status == 200)
            #expect(try await signedOut.call(.get, "/v1/me").status == 401)

            let revoked = try await Person.signIn(app, email: "erin@example.com")
            #expect(try await revoked.call(.get, "/v1/me").status == 200)
            let sessions = try await app.call(.get, "/v1/users/\(revoked.user.id)/sessions")
            #expect(sessions.value["sessions"]?.arrayValue?.count == 1, "\(sessions.text)")
            #expect(try await app.call(.delete, "/v1/users/\(revoked.user.id)/sessions").status == 200)
            #expect(try await revoked.call(.get, "/v1/me").status == 401)

            let short = try await Person.signIn(app, email: "erin@example.com", maxAge: .seconds(1))
            #expect(try await short.call(.get, "/v1/me").status == 200)
            try await Task.sleep(for: .milliseconds(1500))
            #expect(try await short.call(.get, "/v1/me").status == 401, "past its absolute lifetime")

            let idle = try await Person.signIn(app, email: "erin@example.com")
            try await Task.sleep(for: .milliseconds(2500))
            #expect(try await idle.call(.get, "/v1/me").status == 401, "idle past the idle timeout")
        }
    }

    @Test func aKeyIsNeverStrongerThanItsOwner() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let binding = try await bind(app, "bob@example.com", "editor", "shop-app")
            let bob = try await Person.signIn(app, email: "bob@example.com")
            let admin = try await bob.call(.post, "/v1/apiKeys", json: ["role": "admin", "project": "shop-app"])
            #expect(admin.status == 403, "more than his role: \(admin.text)")
            let made = try await bob.call(
                .post, "/v1/apiKeys", json: ["displayName": "bob's CI", "role": "editor", "project": "shop-app"])
            #expect(made.status == 201, "\(made.text)")
            #expect(made.value["owner"]?.stringValue == "users/\(bob.user.id)")
            let key = try #require(made.value["key"]?.stringValue)
            #expect(
                try await app.call(
                    .put, "/v1/projects/shop-app/remoteConfig", token: key, json: Self.template,
                    headers: [.ifMatch: "*"]
                ).status == 200)
            let mine = try await bob.call(.get, "/v1/apiKeys?owner=me")
            #expect(mine.value["apiKeys"]?.arrayValue?.count == 1, "\(mine.text)")
            let all = try await app.call(.get, "/v1/apiKeys")
            let listed = try #require(all.value["apiKeys"]?.arrayValue?.first { $0["owner"]?.stringValue != nil })
            #expect(listed["lastUsedTime"]?.stringValue != nil, "used once: \(all.text)")

            _ = try await app.call(.delete, "/v1/\(binding)")
            let refused = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig", token: key, json: Self.template, headers: [.ifMatch: "*"])
            #expect(refused.status == 403, "the owner lost the role, so did the key: \(refused.text)")
        }
    }

    @Test func fourEyesMeansTwoPeople() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.admin.updateProject("shop-app", UpdateProjectRequest(requireApproval: true))
            _ = try await bind(app, "group:release", "editor", "shop-app")
            let alice = try await Person.signIn(app, email: "alice@example.com", groups: ["release"])
            let bob = try await Person.signIn(app, email: "bob@example.com", groups: ["release"])
            let changes = "/v1/projects/shop-app/remoteConfig/changeRequests"
            let opened = try await alice.call(.post, changes, json: ["description": "ship", "template": Self.template])
            #expect(opened.status == 201, "\(opened.text)")
            #expect(opened.value["author"]?["email"] == "alice@example.com")
            let approve = "/v1/projects/shop-app/remoteConfig/\(opened.value["name"]?.stringValue ?? ""):approve"
            let own = try await alice.call(.post, approve, json: [:])
            #expect(own.status == 403 && own.errorReasons == ["SELF_APPROVAL"], "\(own.text)")
            let key = try #require(
                try await alice.call(.post, "/v1/apiKeys", json: ["role": "editor", "project": "shop-app"]).value[
                    "key"]?.stringValue)
            let byKey = try await app.call(.post, approve, token: key, json: [:])
            #expect(byKey.status == 403 && byKey.errorReasons == ["SELF_APPROVAL"], "her own key: \(byKey.text)")
            let byBob = try await bob.call(.post, approve, json: ["comment": "ok"])
            #expect(byBob.status == 200 && byBob.value["state"] == "APPROVED", "\(byBob.text)")
            #expect(byBob.value["approvals"]?.arrayValue?.first?["email"] == "bob@example.com")
            let twice = try await bob.call(.post, approve, json: [:])
            #expect(twice.status == 409 && twice.errorReasons == ["ALREADY_APPROVED"], "one approval a person")

            // Keys with no owner: one minted by the author's key, and the one that minted it, stand for the author.
            let parent = try await app.createKey(role: "admin", project: "shop-app", name: "lead")
            let author = try #require(
                try await app.call(
                    .post, "/v1/apiKeys", token: parent.secret,
                    json: ["displayName": "CI", "role": "admin", "project": "shop-app"]
                ).value["key"]?.stringValue)
            let minted = try #require(
                try await app.call(
                    .post, "/v1/apiKeys", token: author,
                    json: ["displayName": "sock puppet", "role": "editor", "project": "shop-app"]
                ).value["key"]?.stringValue)
            let proposal = try await app.call(
                .post, changes, token: author, json: ["description": "by CI", "template": Self.template])
            let approveCI = "/v1/projects/shop-app/remoteConfig/\(proposal.value["name"]?.stringValue ?? ""):approve"
            for (token, who) in [
                (minted, "a key the author minted"), (parent.secret, "the key that minted the author"),
            ] {
                let reply = try await app.call(.post, approveCI, token: token, json: [:])
                #expect(reply.status == 403 && reply.errorReasons == ["SELF_APPROVAL"], "\(who): \(reply.text)")
            }
            let sibling = try await app.createKey(role: "editor", project: "shop-app", name: "reviewer")
            #expect(try await app.call(.post, approveCI, token: sibling.secret, json: [:]).status == 200)
        }
    }

    @Test func roleBindingsCheckTheirInputAndAreAudited() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let cases: [(JSONValue, Int, String)] = [
                (["member": "nobody", "role": "viewer"], 400, "INVALID_MEMBER"),
                (["member": "group:", "role": "viewer"], 400, "INVALID_MEMBER"),
                (["member": "user:a@example.com", "role": "client"], 400, "INVALID_ROLE"),
                (["member": "user:a@example.com", "role": "viewer", "project": "nope-app"], 404, "PROJECT_NOT_FOUND"),
            ]
            for (body, status, reason) in cases {
                let reply = try await app.call(.post, "/v1/roleBindings", json: body)
                #expect(reply.status == status && reply.errorReasons == [reason], "\(body): \(reply.text)")
            }
            _ = try await bind(app, "A@Example.com", "viewer", "shop-app")
            let again = try await app.call(
                .post, "/v1/roleBindings",
                json: ["member": "user:a@example.com", "role": "viewer", "project": "shop-app"])
            #expect(again.status == 409 && again.errorReasons == ["ALREADY_BOUND"], "\(again.text)")
            let projectAdmin = try await app.createKey(role: "admin", project: "shop-app")
            let global = try await app.call(
                .post, "/v1/roleBindings", token: projectAdmin.secret,
                json: ["member": "x@example.com", "role": "admin"])
            #expect(global.status == 403, "a project's admin binds only on that project")
            let scoped = try await app.call(
                .post, "/v1/roleBindings", token: projectAdmin.secret,
                json: ["member": "x@example.com", "role": "admin", "project": "shop-app"])
            #expect(scoped.status == 201, "\(scoped.text)")
            let listed = try await app.call(.get, "/v1/roleBindings?project=shop-app")
            #expect(
                listed.value["roleBindings"]?.arrayValue?.map { $0["member"] } == [
                    "user:a@example.com", "user:x@example.com",
                ])
            let log = try await app.call(.get, "/v1/projects/shop-app/auditLog")
            #expect(log.value["events"]?.arrayValue?.filter { $0["action"] == "roleBinding.create" }.count == 2)
        }
    }

    @Test func signInSaysWhenItIsNotSetUp() async throws {
        try await TestApp.run { app in
            let login = try await app.call(.get, "/console/auth/login", token: nil)
            #expect(login.status == 404 && login.errorReasons == ["SSO_NOT_CONFIGURED"], "\(login.text)")
            let config = try await app.call(.get, "/console/auth/config", token: nil)
            #expect(config.value == ["provider": .null, "tokenSignIn": true])
            let me = try await app.call(.get, "/v1/me")
            #expect(me.value["user"] == .null && me.value["key"]?["displayName"] == "bootstrap admin")
            #expect(me.value["roles"] == [["role": "admin", "project": .null]], "\(me.text)")
        }
    }
}
