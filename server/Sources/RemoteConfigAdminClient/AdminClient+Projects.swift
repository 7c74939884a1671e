import RemoteConfigCore

/// `/v1/projects` and `/v1/apiKeys`.
extension AdminClient {
    /// `GET /v1/projects`: the projects this key sees.
    public func listProjects() async throws -> JSONObject {
        try await call("GET", "/v1/projects").object()
    }

    /// `GET /v1/projects/{p}`: the project with its approval settings.
    public func project(id: String) async throws -> JSONObject {
        try await call("GET", "/v1/projects/" + Self.escape(id)).object()
    }

    /// `POST /v1/projects`.
    public func createProject(id: String, displayName: String?) async throws -> JSONObject {
        var body: JSONObject = ["projectId": .string(id)]
        if let displayName { body["displayName"] = .string(displayName) }
        return try await call("POST", "/v1/projects", body: JSONValue.object(body).jsonBytes()).object()
    }

    /// `GET /v1/apiKeys`: the active keys, without secrets.
    public func listKeys() async throws -> JSONObject {
        try await call("GET", "/v1/apiKeys").object()
    }

    /// `POST /v1/apiKeys`: the answer carries the secret, shown this once.
    public func createKey(role: String, project: String?, displayName: String?) async throws -> JSONObject {
        var body: JSONObject = ["role": .string(role)]
        if let project { body["project"] = .string(project) }
        if let displayName { body["displayName"] = .string(displayName) }
        return try await call("POST", "/v1/apiKeys", body: JSONValue.object(body).jsonBytes()).object()
    }

    /// `DELETE /v1/apiKeys/{id}`; `id` may be given as `apiKeys/<id>`.
    public func revokeKey(_ id: String) async throws {
        let bare = id.hasPrefix("apiKeys/") ? String(id.dropFirst("apiKeys/".count)) : id
        _ = try await call("DELETE", "/v1/apiKeys/" + Self.escape(bare))
    }
}
