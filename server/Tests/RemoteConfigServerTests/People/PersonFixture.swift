import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport

/// A person signed in to an application under test: recorded and given a console session through the real
/// stores (what the sign-in callback does once the provider's ID token is verified; the verification itself is
/// tested against a real provider in `server/Tests/OIDC/sso_test.py`).
struct Person {
    let app: TestApp.Session
    let user: User
    let cookie: String
    let csrf: String

    static func signIn(
        _ app: TestApp.Session, email: String, verified: Bool = true, groups: [String] = [],
        maxAge: Duration = .seconds(3600)
    ) async throws -> Person {
        let user = try await UserStore(database: app.database).signedIn(
            SignedInPerson(
                issuer: "https://sso.example.com", subject: "sub-\(email)", email: email, emailVerified: verified,
                displayName: email.split(separator: "@").first.map(String.init) ?? email, groups: groups))
        let (session, secret) = try await SessionStore(database: app.database, maxAge: maxAge).create(
            user: user.id, kind: .console)
        return Person(app: app, user: user, cookie: secret, csrf: session.csrfToken)
    }

    /// A call with the session cookie; writes carry the CSRF token unless `csrf` says otherwise.
    @discardableResult
    func call(
        _ method: HTTPRequest.Method, _ uri: String, json: JSONValue? = nil, csrf: String?? = .none,
        headers: HTTPFields = [:]
    ) async throws -> TestApp.Reply {
        var fields = headers
        fields[.cookie] = "theme=dark; rc_session=\(cookie)"
        let token: String? =
            switch csrf {
            case .none: method == .get ? nil : self.csrf
            case .some(let given): given
            }
        if let token { fields[HTTPField.Name("X-RC-CSRF")!] = token }
        return try await app.call(method, uri, token: nil, json: json, headers: fields)
    }
}

/// Gives `member` `role` on `project` (nil: every project) with the admin token.
func bind(_ app: TestApp.Session, _ member: String, _ role: String, _ project: String?) async throws -> String {
    var body: JSONObject = ["member": .string(member), "role": .string(role)]
    if let project { body["project"] = .string(project) }
    let reply = try await app.call(.post, "/v1/roleBindings", json: .object(body))
    guard reply.status == 201, let name = reply.value["name"]?.stringValue else {
        throw PeopleTestFailure(description: "binding \(member): \(reply.status) \(reply.text)")
    }
    return name
}

/// A step of a people test that could not be taken.
struct PeopleTestFailure: Error, CustomStringConvertible {
    let description: String
}
