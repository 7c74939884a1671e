import RemoteConfigAPI
import RemoteConfigCore

/// `/v1/projects` and `/v1/apiKeys`.
extension AdminClient {
    /// `GET /v1/projects`: the projects this key sees.
    public func listProjects() async throws -> ProjectList {
        try await call("GET", "/v1/projects").decode(ProjectList.self)
    }

    /// `GET /v1/projects/{p}`: the project with its approval settings.
    public func project(id: String) async throws -> Project {
        try await call("GET", "/v1/projects/" + Self.escape(id)).decode(Project.self)
    }

    /// `POST /v1/projects`.
    public func createProject(id: String, displayName: String?) async throws -> Project {
        let body = CreateProjectRequest(projectId: id, displayName: displayName)
        return try await call("POST", "/v1/projects", body: APIEncoder.bytes(body)).decode(Project.self)
    }

    /// `GET /v1/apiKeys`: the active keys, without secrets; only the caller's own with `mine`.
    public func listKeys(mine: Bool = false) async throws -> APIKeyList {
        try await call("GET", "/v1/apiKeys", query: mine ? [("owner", "me")] : []).decode(APIKeyList.self)
    }

    /// `POST /v1/apiKeys`: the answer carries the secret, shown this once.
    public func createKey(role: String, project: String?, displayName: String?) async throws -> APIKey {
        let body = CreateAPIKeyRequest(displayName: displayName, role: role, project: project)
        return try await call("POST", "/v1/apiKeys", body: APIEncoder.bytes(body)).decode(APIKey.self)
    }

    /// `DELETE /v1/apiKeys/{id}`; `id` may be given as `apiKeys/<id>`.
    public func revokeKey(_ id: String) async throws {
        let bare = id.hasPrefix("apiKeys/") ? String(id.dropFirst("apiKeys/".count)) : id
        _ = try await call("DELETE", "/v1/apiKeys/" + Self.escape(bare))
    }
}
