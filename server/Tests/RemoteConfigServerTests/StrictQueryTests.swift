import Foundation
import HTTPTypes
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// Every route refuses a query parameter it does not know, and a repeated one, with 400 naming it and
/// nothing changed: a misspelt `validateOnly` never publishes.
@Suite struct StrictQueryTests {
    /// A concrete path for a route's pattern.
    static func concrete(_ path: String) -> String {
        path.replacingOccurrences(of: "{p}", with: "shop-app").replacingOccurrences(of: "{id}", with: "nokey")
    }

    @Test func everyRouteRefusesAnUnknownParameter() async throws {
        let table = RouteTable()
        try await TestApp.run(routes: table) { app in
            try await app.createProject("shop-app")
            #expect(table.routes.count > 20)
            // The sign-in callback is the one route another server redirects to: providers add parameters of their
            // own there (`session_state`, `iss`, Google's `authuser`), so it takes unknown ones (SignInTests).
            for route in table.routes where route.path != "/console/auth/callback" {
                let reply = try await app.call(route.method, Self.concrete(route.path) + "?bogus=1")
                #expect(reply.status == 400, "\(route): \(reply.status) \(reply.text)")
                #expect(reply.errorFields == ["bogus"], "\(route)")
                #expect(reply.errorReasons == ["UNKNOWN_PARAMETER"], "\(route)")
            }
            // HEAD, generated from GET, is just as strict.
            let head = try await app.call(.head, "/v1/projects?bogus=1")
            #expect(head.status == 400)
        }
    }

    @Test func everyRouteRefusesARepeatedParameter() async throws {
        let table = RouteTable()
        try await TestApp.run(routes: table) { app in
            try await app.createProject("shop-app")
            for route in table.routes {
                guard let name = route.query.sorted().first else { continue }
                let reply = try await app.call(route.method, Self.concrete(route.path) + "?\(name)=1&\(name)=2")
                #expect(reply.status == 400, "\(route): \(reply.status) \(reply.text)")
                #expect(reply.errorFields == [name], "\(route)")
                #expect(reply.errorReasons == ["REPEATED_PARAMETER"], "\(route)")
            }
        }
    }

    /// The spellings an attack published with; each is 400 and publishes nothing.
    @Test func misspeltValidateOnlyNeverPublishes() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let spellings: [(String, String)] = [
                ("validateonly=true", "validateonly"), ("validate_only=true", "validate_only"),
                ("validateOnly=false&validateOnly=true", "validateOnly"), ("validateOnly=true&force=true", "force"),
                ("validate%4Fnly=true&validateOnly=true", "validateOnly"),
            ]
            for (query, field) in spellings {
                let reply = try await app.call(
                    .put, "/v1/projects/shop-app/remoteConfig?\(query)",
                    json: TemplateFixtures.forceUpdateValue(), headers: [.ifMatch: "*"])
                #expect(reply.status == 400, "\(query): \(reply.status)")
                #expect(reply.errorFields == [field], "\(query)")
                #expect(reply.errorStatus == "INVALID_ARGUMENT")
            }
            let versions = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions")
            #expect(versions.value["versions"]?.arrayValue?.count == 0, "nothing was published: \(versions.text)")
            let audit = try await app.call(.get, "/v1/projects/shop-app/auditLog")
            #expect(!audit.text.contains("publish"), "nothing was audited as published")
        }
    }

    /// The draft route has no dry run: `validateOnly` there is 400 and the saved draft stays as it was.
    @Test func validateOnlyOnTheDraftIsRefused() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let path = "/v1/projects/shop-app/remoteConfig/draft"
            let saved = try await app.call(
                .put, path, json: TemplateFixtures.forceUpdateValue(currentVersion: "1.1.1"), headers: [.ifMatch: "*"])
            #expect(saved.status == 200)
            let reply = try await app.call(
                .put, path + "?validateOnly=true", json: TemplateFixtures.forceUpdateValue(currentVersion: "9.9.9"),
                headers: [.ifMatch: "*"])
            #expect(reply.status == 400)
            #expect(reply.errorFields == ["validateOnly"])
            #expect(reply.errorReasons == ["UNKNOWN_PARAMETER"])
            let current = try await app.call(.get, path)
            #expect(current.headers[.eTag] == saved.headers[.eTag])
            #expect(current.text.contains("1.1.1") && !current.text.contains("9.9.9"))
        }
    }

    /// Known parameters still work, `?key=` included on client routes.
    @Test func knownParametersAreAccepted() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let client = try await app.createKey(role: "client", project: "shop-app")
            let fetch = try await app.call(
                .post, "/v1/projects/shop-app/remoteConfig:fetch?key=\(client.secret)", token: nil,
                json: ["appInstanceId": "i"])
            #expect(fetch.status == 200)
            let dryRun = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig?validateOnly=true", json: TemplateFixtures.forceUpdateValue(),
                headers: [.ifMatch: "*"])
            #expect(dryRun.status == 200)
            let page = try await app.call(
                .get, "/v1/projects/shop-app/remoteConfig:listVersions?pageSize=1&pageToken=5")
            #expect(page.status == 200)
        }
    }
}
