import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigAPI

/// The admin API with typed bodies (RemoteConfigAPI's), for tests that check what an answer says rather than how
/// its JSON is spelled: `try await app.admin.createProject("shop-app")`.
public struct AdminCalls: Sendable {
    let session: TestApp.Session
    /// The bearer key the calls carry.
    public let token: String?

    /// The same calls with another key.
    public func with(token: String?) -> AdminCalls { AdminCalls(session: session, token: token) }

    /// Sends `body` (encoded as the server writes JSON) and decodes a 2xx answer as `T`; an error answer throws
    /// `AdminCallFailure` with the server's error body.
    public func send<T: Decodable>(
        _ method: HTTPRequest.Method, _ uri: String, _ body: (some Encodable)? = EmptyBody?.none, as type: T.Type,
        headers: HTTPFields = [:]
    ) async throws -> T {
        let raw = try body.map { ByteBuffer(bytes: try APIEncoder.bytes($0)) }
        var fields = headers
        if raw != nil { fields[.contentType] = "application/json" }
        let reply = try await session.call(method, uri, token: token, raw: raw, headers: fields)
        guard (200..<300).contains(reply.status) else { throw AdminCallFailure(reply: reply) }
        return try reply.decode(type)
    }

    /// `POST /v1/projects`.
    @discardableResult
    public func createProject(_ id: String, displayName: String? = nil) async throws -> Project {
        try await send(
            .post, "/v1/projects", CreateProjectRequest(projectId: id, displayName: displayName), as: Project.self)
    }

    /// `GET /v1/projects`.
    public func listProjects() async throws -> ProjectList {
        try await send(.get, "/v1/projects", as: ProjectList.self)
    }

    /// `GET /v1/projects/{p}`.
    public func project(_ id: String) async throws -> Project {
        try await send(.get, "/v1/projects/\(id)", as: Project.self)
    }

    /// `PATCH /v1/projects/{p}`.
    @discardableResult
    public func updateProject(_ id: String, _ update: UpdateProjectRequest) async throws -> Project {
        try await send(.patch, "/v1/projects/\(id)", update, as: Project.self)
    }

    /// `POST /v1/apiKeys`: the answer carries the secret.
    public func createKey(role: String, project: String? = nil, name: String? = nil) async throws -> APIKey {
        let body = CreateAPIKeyRequest(displayName: name ?? "\(role) key", role: role, project: project)
        return try await send(.post, "/v1/apiKeys", body, as: APIKey.self)
    }

    /// `GET /v1/apiKeys`.
    public func listKeys() async throws -> APIKeyList {
        try await send(.get, "/v1/apiKeys", as: APIKeyList.self)
    }

    /// `DELETE /v1/apiKeys/{id}`.
    public func revokeKey(_ id: String) async throws {
        _ = try await send(.delete, "/v1/apiKeys/\(id)", as: EmptyBody.self)
    }
}

/// An admin call the server answered with an error: the status and the error body, for `#expect`s.
public struct AdminCallFailure: Error, CustomStringConvertible {
    public let status: Int
    /// The error body, when the answer had the API's error shape.
    public let error: ErrorBody?
    public let text: String

    init(reply: TestApp.Reply) {
        status = reply.status
        error = try? reply.decode(ErrorBody.self)
        text = reply.text
    }

    public var description: String { "the server answered \(status): \(text)" }
}

extension TestApp.Session {
    /// The admin API with typed bodies, as the bootstrap admin.
    public var admin: AdminCalls { AdminCalls(session: self, token: TestApp.adminToken) }
}
