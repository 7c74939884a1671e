import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport

/// Calls of the publish workflow tests: project settings and change requests of `shop-app`.
enum Workflow {
    static let base = "/v1/projects/shop-app/remoteConfig/changeRequests"

    /// Sets `shop-app`'s approval settings as the bootstrap admin.
    static func requireApproval(_ app: TestApp.Session, _ on: Bool, approvals: Int = 1) async throws {
        try await app.admin.updateProject(
            "shop-app", UpdateProjectRequest(requireApproval: on, approvalsRequired: Double(approvals)))
    }

    /// Opens a change request with `body` as `token`'s key.
    static func create(
        _ app: TestApp.Session, token: String = TestApp.adminToken, _ body: JSONValue, ifMatch: String? = nil
    ) async throws -> TestApp.Reply {
        var headers = HTTPFields()
        if let ifMatch { headers[.ifMatch] = ifMatch }
        return try await app.call(.post, base, token: token, json: body, headers: headers)
    }

    /// Opens a change request of the force-update template with `currentVersion`; returns its id.
    static func propose(
        _ app: TestApp.Session, token: String = TestApp.adminToken, currentVersion: String = "3.0.0",
        description: String = "raise the version", publishTime: Date? = nil
    ) async throws -> String {
        let body = CreateChangeRequestRequest(
            description: description, template: TemplateFixtures.forceUpdateValue(currentVersion: currentVersion),
            publishTime: publishTime.map(timestamp))
        let reply = try await app.call(.post, base, token: token, body: body)
        guard reply.status == 201 else { throw Failure("could not open a change request: \(reply.text)") }
        return id(reply)
    }

    /// `<id>` of an answer's `changeRequests/<id>`.
    static func id(_ reply: TestApp.Reply) -> String {
        (try? reply.decode(ChangeRequest.self).id) ?? ""
    }

    /// `POST …/{id}:<action>` (approve, reject, cancel, publish) as `token`'s key.
    @discardableResult
    static func act(
        _ app: TestApp.Session, _ id: String, _ action: String, token: String = TestApp.adminToken,
        json: JSONValue? = [:], query: String = ""
    ) async throws -> TestApp.Reply {
        try await app.call(.post, "\(base)/\(id):\(action)\(query)", token: token, json: json)
    }

    /// `GET …/{id}`.
    static func get(_ app: TestApp.Session, _ id: String) async throws -> TestApp.Reply {
        try await app.call(.get, "\(base)/\(id)")
    }

    /// The published versions of `project`, newest first.
    static func versions(_ app: TestApp.Session, project: String = "shop-app") async throws -> [JSONValue] {
        let reply = try await app.call(.get, "/v1/projects/\(project)/remoteConfig:listVersions")
        return reply.value["versions"]?.arrayValue ?? []
    }

    /// The audit events of `shop-app`, newest first.
    static func events(_ app: TestApp.Session) async throws -> [JSONValue] {
        let reply = try await app.call(.get, "/v1/projects/shop-app/auditLog?pageSize=1000")
        return reply.value["events"]?.arrayValue ?? []
    }

    /// A failed setup step, thrown (a precondition would end the whole test process).
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func timestamp(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }

    /// Polls `condition` every 50 ms until it holds or `limit` passes.
    static func eventually(_ limit: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws
        -> Bool
    {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }
}

extension TestApp.Reply {
    /// The answer as a change request.
    var changeRequest: ChangeRequest {
        get throws { try decode(ChangeRequest.self) }
    }

    /// The answer as a page of change requests.
    var changeRequests: ChangeRequestList {
        get throws { try decode(ChangeRequestList.self) }
    }
}
