import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// Walks every admin route with every kind of caller: none, wrong, revoked, each role, client, other project.
@Suite struct AuthMatrixTests {
    /// The least role each admin route needs, and whether a key of one project may use it at all.
    /// Every admin route of the router must be listed (checked below), so a new route cannot skip the matrix.
    static let minimumRole: [String: (role: String, projectScoped: Bool)] = [
        "POST /v1/projects": ("admin", false),
        "GET /v1/projects": ("viewer", true),
        "GET /v1/projects/{p}": ("viewer", true),
        "POST /v1/apiKeys": ("admin", true),
        "GET /v1/apiKeys": ("admin", true),
        "DELETE /v1/apiKeys/{id}": ("admin", true),
        "GET /v1/projects/{p}/remoteConfig": ("viewer", true),
        "PUT /v1/projects/{p}/remoteConfig": ("editor", true),
        "GET /v1/projects/{p}/remoteConfig:listVersions": ("viewer", true),
        "POST /v1/projects/{p}/remoteConfig:rollback": ("editor", true),
        "GET /v1/projects/{p}/remoteConfig:downloadDefaults": ("viewer", true),
        "GET /v1/projects/{p}/remoteConfig:diff": ("viewer", true),
        "POST /v1/projects/{p}/remoteConfig:promote": ("editor", true),
        "GET /v1/projects/{p}/remoteConfig:compare": ("viewer", true),
        "POST /v1/projects/{p}/remoteConfig:evaluate": ("viewer", true),
        "POST /v1/projects/{p}/remoteConfig:impact": ("viewer", true),
        "GET /v1/projects/{p}/auditLog": ("viewer", true),
        "GET /v1/auditLog": ("admin", false),
        "GET /v1/projects/{p}/remoteConfig/draft": ("viewer", true),
        "PUT /v1/projects/{p}/remoteConfig/draft": ("editor", true),
        "DELETE /v1/projects/{p}/remoteConfig/draft": ("editor", true),
        "POST /v1/projects/{p}/remoteConfig/draft:publish": ("editor", true),
        "PATCH /v1/projects/{p}": ("admin", true),
        "POST /v1/projects/{p}/remoteConfig/changeRequests": ("editor", true),
        "GET /v1/projects/{p}/remoteConfig/changeRequests": ("viewer", true),
        "GET /v1/projects/{p}/remoteConfig/changeRequests/{id}": ("viewer", true),
        "POST /v1/projects/{p}/remoteConfig/changeRequests/{id}:approve": ("editor", true),
        "POST /v1/projects/{p}/remoteConfig/changeRequests/{id}:reject": ("editor", true),
        "POST /v1/projects/{p}/remoteConfig/changeRequests/{id}:cancel": ("editor", true),
        "POST /v1/projects/{p}/remoteConfig/changeRequests/{id}:publish": ("editor", true),
        "GET /v1/projects/{p}/storeSync": ("viewer", true),
        "PUT /v1/projects/{p}/storeSync": ("admin", true),
        "POST /v1/projects/{p}/storeSync:run": ("editor", true),
        "GET /v1/projects/{p}/storeSync/googlePlay": ("viewer", true),
        "PUT /v1/projects/{p}/storeSync/googlePlay": ("admin", true),
        "DELETE /v1/projects/{p}/storeSync/googlePlay": ("admin", true),
        "POST /v1/projects/{p}/storeSync/googlePlay:run": ("editor", true),
        "GET /v1/projects/{p}/insights/versions": ("viewer", true),
        "GET /v1/projects/{p}/insights/parameters": ("viewer", true),
        "GET /v1/projects/{p}/insights/timeline": ("viewer", true),
        "GET /v1/projects/{p}/insights/minimumVersion": ("viewer", true),
        "POST /v1/projects/{p}/insights:import": ("admin", true),
        "GET /v1/projects/{p}/minimumVersionPolicy": ("viewer", true),
        "PUT /v1/projects/{p}/minimumVersionPolicy": ("admin", true),
        "POST /v1/projects/{p}/webhooks": ("admin", true),
        "GET /v1/projects/{p}/webhooks": ("admin", true),
        "GET /v1/projects/{p}/webhooks/{id}": ("admin", true),
        "PATCH /v1/projects/{p}/webhooks/{id}": ("admin", true),
        "DELETE /v1/projects/{p}/webhooks/{id}": ("admin", true),
        "POST /v1/projects/{p}/webhooks/{id}:rotateSecret": ("admin", true),
        "POST /v1/projects/{p}/webhooks/{id}:test": ("admin", true),
        "GET /v1/projects/{p}/webhooks/{id}/deliveries": ("admin", true),
        "POST /v1/projects/{p}/webhooks/{id}/deliveries/{delivery}:redeliver": ("admin", true),
        "POST /v1/projects/{p}/rollouts": ("editor", true),
        "GET /v1/projects/{p}/rollouts": ("viewer", true),
        "GET /v1/projects/{p}/rollouts/{id}": ("viewer", true),
        "POST /v1/projects/{p}/rollouts/{id}:pause": ("editor", true),
        "POST /v1/projects/{p}/rollouts/{id}:resume": ("editor", true),
        "POST /v1/projects/{p}/rollouts/{id}:halt": ("editor", true),
        "POST /v1/projects/{p}/rollouts/{id}:complete": ("editor", true),
        // Any caller but a client key: who it is and its roles.
        "GET /v1/me": ("viewer", true),
        // Signing out takes a session; with a key it is 400, not a refusal.
        "POST /console/auth/logout": ("viewer", true),
        // A project's admin binds people on that project (the body names it), an admin of all on all.
        "POST /v1/roleBindings": ("admin", true),
        "GET /v1/roleBindings": ("admin", false),
        "DELETE /v1/roleBindings/{id}": ("admin", false),
        "GET /v1/users": ("admin", false),
        "GET /v1/users/{id}/sessions": ("admin", false),
        "DELETE /v1/users/{id}/sessions": ("admin", false),
        // Assistants: any caller but a client key; each tool then needs the role of the admin call it makes.
        "POST /mcp": ("viewer", true),
        "GET /mcp": ("viewer", true),
        "DELETE /mcp": ("viewer", true),
    ]
    /// Routes without a bearer key: probes, the spec, and the client routes (their matrix is the next test).
    static let publicRoutes: Set<String> = [
        "GET /healthz", "GET /readyz", "GET /openapi.yaml", "GET /metrics", "POST /v1/projects/{p}/remoteConfig:fetch",
        "GET /v1/projects/{p}/remoteConfig:stream", "POST /ofrep/v1/evaluate/flags",
        "POST /ofrep/v1/evaluate/flags/{key}", "GET /console", "GET /console/{file}",
        // A rollout's halt token, no API key, opens it (RolloutHaltHookTests.theTokenOpensNothingElse).
        "POST /v1/rollouts/{id}:halt",
        // Signing in: before anyone is anybody (SignInTests, server/Tests/OIDC/sso_test.py).
        "GET /console/auth/config", "GET /console/auth/login", "GET /console/auth/callback", "POST /v1/auth/device",
        "POST /v1/auth/device:token", "POST /v1/auth/loopback", "POST /v1/auth/loopback:token",
    ]
    static let roles = ["viewer", "editor", "admin"]

    @Test func everyAdminRouteAnswers401And403AsItShould() async throws {
        let table = RouteTable()
        try await TestApp.run(routes: table) { app in
            try await app.createProject("shop-app")
            try await app.createProject("other-app")
            let routes = table.routes.map(\.description).filter { !Self.publicRoutes.contains($0) }
            #expect(Set(routes) == Set(Self.minimumRole.keys), "every admin route needs a row in the matrix")

            var keys: [String: String] = [:]
            for role in Self.roles {
                keys[role] = try await app.createKey(role: role).secret
                keys["\(role)@shop-app"] = try await app.createKey(role: role, project: "shop-app").secret
                keys["\(role)@other-app"] = try await app.createKey(role: role, project: "other-app").secret
            }
            keys["client"] = try await app.createKey(role: "client", project: "shop-app").secret
            let revoked = try await app.createKey(role: "admin")
            try await app.call(.delete, "/v1/apiKeys/\(revoked.id)")

            for route in table.routes where !Self.publicRoutes.contains(route.description) {
                let (minimum, projectScoped) = Self.minimumRole[route.description]!
                // A victim key per request, so DELETE has something to act on.
                let victim = try await app.createKey(role: "viewer", project: "shop-app")
                // A change request per request too, opened by a key that may then act on it (a cancel by its
                // author; anything else by another key than the editor, who approves: a sibling of it, since
                // the key that made the editor's key counts as the editor's identity).
                var id = victim.id
                if route.path.contains("/changeRequests/") {
                    let author = route.path.hasSuffix(":cancel") ? keys["editor"]! : keys["admin"]!
                    let created = try await app.call(
                        .post, "/v1/projects/shop-app/remoteConfig/changeRequests", token: author,
                        body: CreateChangeRequestRequest(template: ["parameters": [:]]))
                    id = try created.decode(ChangeRequest.self).id
                }
                if route.path.contains("/rollouts/{id}") {
                    // A rollout per request, of a parameter that no other live rollout holds.
                    let parameter = "p_\(UUID().uuidString.prefix(8))"
                    let template: JSONValue = ["parameters": .object([parameter: ["defaultValue": ["value": "a"]]])]
                    _ = try await app.publish("shop-app", template)
                    let created = try await app.call(
                        .post, "/v1/projects/shop-app/rollouts",
                        body: RolloutCreate(parameter: parameter, value: "b", steps: [RolloutStep(percent: 10)]))
                    id = String(try created.decode(Rollout.self).name.dropFirst("rollouts/".count))
                }
                if route.path.hasPrefix("/v1/users/{id}") {
                    let person = try await UserStore(database: app.database).signedIn(
                        SignedInPerson(
                            issuer: "https://sso.example.com", subject: UUID().uuidString, email: "p@example.com",
                            emailVerified: true, displayName: "P", groups: []))
                    id = person.id
                }
                if route.path.contains("/webhooks/{id}") {
                    let created = try await app.call(
                        .post, "/v1/projects/shop-app/webhooks",
                        body: WebhookRequest(url: "https://hooks.example.com/rc", events: ["template.published"]))
                    id = try created.decode(Webhook.self).id
                }
                let path =
                    route.path.replacingOccurrences(of: "{p}", with: "shop-app")
                    .replacingOccurrences(of: "{id}", with: id).replacingOccurrences(of: "{delivery}", with: "none")
                    + (route.path.hasSuffix(":diff") ? "?from=draft&to=draft" : "")
                    + (route.path.hasSuffix("/minimumVersion") ? "?platform=IOS" : "")
                    + (route.path.hasSuffix(":compare") ? "?with=shop-app" : "")
                let body: JSONValue? =
                    switch route.path {
                    case "/v1/projects": ["projectId": .string("new-\(UUID().uuidString.prefix(6).lowercased())")]
                    case "/v1/apiKeys": ["role": "client", "project": "shop-app"]
                    default: nil
                    }
                func status(_ token: String?, _ raw: String? = nil) async throws -> Int {
                    var headers = HTTPFields()
                    if let raw { headers[.authorization] = raw }
                    return try await app.call(route.method, path, token: token, json: body, headers: headers).status
                }
                let name = route.description
                #expect(try await status(nil) == 401, "\(name) without a token")
                #expect(try await status(nil, "Basic dXNlcjpwYXNz") == 401, "\(name) with a non-bearer header")
                #expect(try await status("rc_admin_wrongwrongwrongwrongwrongwrong12") == 401, "\(name) wrong token")
                #expect(try await status(revoked.secret) == 401, "\(name) with a revoked token")
                #expect(try await status(keys["client"]) == 403, "\(name) with a client key")
                let minimumIndex = Self.roles.firstIndex(of: minimum)!
                for role in Self.roles[..<minimumIndex] {
                    #expect(try await status(keys[role]) == 403, "\(name) as \(role)")
                    #expect(try await status(keys["\(role)@shop-app"]) == 403, "\(name) as \(role)@shop-app")
                }
                let allowed = Self.roles[minimumIndex]
                if route.path.contains("{p}") {
                    #expect(try await status(keys["\(allowed)@other-app"]) == 403, "\(name) with another project's key")
                }
                if !projectScoped {
                    #expect(try await status(keys["\(allowed)@shop-app"]) == 403, "\(name) with a project key")
                }
                // Allowed through: whatever the route then says (400 for an empty body, 404, 428…), it is not 401/403.
                let allowedStatus = try await status(keys[allowed])
                #expect(![401, 403].contains(allowedStatus), "\(name) as \(allowed) answered \(allowedStatus)")
                // `/mcp` without a session is 400 (MCPEndpointTests has its own matrix).
                if (route.method == .get && route.path != "/mcp") || route.path.hasPrefix("/v1/apiKeys")
                    || route.path == "/v1/projects"
                {
                    #expect((200..<300).contains(allowedStatus), "\(name) as \(allowed) answered \(allowedStatus)")
                }
            }
        }
    }

    /// The client routes with every kind of caller: only a live client key of the route's project opens them,
    /// in `X-API-Key` or `?key=`; admin-side keys, another project's client key and revoked keys do not.
    @Test func everyClientRouteAnswers401And403AsItShould() async throws {
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            try await app.createProject("other-app")
            let client = try await app.createKey(role: "client", project: "shop-app").secret
            let foreign = try await app.createKey(role: "client", project: "other-app").secret
            let revoked = try await app.createKey(role: "client", project: "shop-app")
            try await app.call(.delete, "/v1/apiKeys/\(revoked.id)")
            var callers: [(String, [String: String], String, Int)] = [
                ("no key", [:], "", 401),
                ("a wrong key", ["X-API-Key": "rc_client_wrongwrongwrongwrongwrongwron"], "", 401),
                ("a revoked client key", ["X-API-Key": revoked.secret], "", 401),
                ("the admin token as a bearer", ["Authorization": "Bearer \(TestApp.adminToken)"], "", 401),
                ("the admin token as a client key", ["X-API-Key": TestApp.adminToken], "", 403),
                ("another project's client key", ["X-API-Key": foreign], "", 403),
                ("the client key", ["X-API-Key": client], "", 200),
                ("the client key in ?key=", [:], "?key=\(client)", 200),
            ]
            for role in Self.roles {
                callers.append(("a \(role) key", ["X-API-Key": try await app.createKey(role: role).secret], "", 403))
                let scoped = try await app.createKey(role: role, project: "shop-app").secret
                callers.append(("a \(role)@shop-app key", ["X-API-Key": scoped], "", 403))
            }
            for (caller, headers, query, expected) in callers {
                var fields = HTTPFields()
                for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
                let fetch = try await app.call(
                    .post, "/v1/projects/shop-app/remoteConfig:fetch\(query)", token: nil,
                    json: ["appInstanceId": "matrix"], headers: fields)
                #expect(fetch.status == expected, "fetch with \(caller)")
                // The stream never ends by itself: read its status line only.
                let stream = try SSEClient(port: app.port, path: ClientCalls.streamPath + query, headers: headers)
                let head = try await stream.head()
                #expect(head.hasPrefix("HTTP/1.1 \(expected)"), "stream with \(caller): \(head.prefix(20))")
                stream.close()
            }
        }
    }

    /// The OFREP routes with every kind of caller: a live client key opens them as a bearer token, in
    /// `X-API-Key` or in `?key=`, and the project is the key's; every other key is refused, without a body.
    @Test func everyOFREPRouteAnswers401And403AsItShould() async throws {
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let client = try await app.createKey(role: "client", project: "shop-app").secret
            let revoked = try await app.createKey(role: "client", project: "shop-app")
            try await app.call(.delete, "/v1/apiKeys/\(revoked.id)")
            var callers: [(String, [String: String], String, Int)] = [
                ("no key", [:], "", 401),
                ("a wrong key", ["Authorization": "Bearer rc_client_wrongwrongwrongwrongwrongwron"], "", 401),
                ("a revoked client key", ["Authorization": "Bearer \(revoked.secret)"], "", 401),
                ("a malformed Authorization", ["Authorization": "Basic \(client)"], "", 401),
                ("the admin token as a bearer", ["Authorization": "Bearer \(TestApp.adminToken)"], "", 403),
                ("the admin token as a client key", ["X-API-Key": TestApp.adminToken], "", 403),
                ("the client key as a bearer", ["Authorization": "Bearer \(client)"], "", 200),
                ("the client key in X-API-Key", ["X-API-Key": client], "", 200),
                ("the client key in ?key=", [:], "?key=\(client)", 200),
            ]
            for role in Self.roles {
                let scoped = try await app.createKey(role: role, project: "shop-app").secret
                callers.append(("a \(role)@shop-app key", ["Authorization": "Bearer \(scoped)"], "", 403))
            }
            for path in ["/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags/current_version"] {
                for (caller, headers, query, expected) in callers {
                    var fields = HTTPFields()
                    for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
                    let reply = try await app.call(
                        .post, path + query, token: nil, json: ["context": ["targetingKey": "matrix"]], headers: fields)
                    #expect(reply.status == expected, "\(path) with \(caller): \(reply.text)")
                    if expected != 200 { #expect(reply.body.isEmpty, "\(path) with \(caller): no body") }
                }
            }
        }
    }
}
