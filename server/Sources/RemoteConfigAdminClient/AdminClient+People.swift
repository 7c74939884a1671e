import RemoteConfigAPI
import RemoteConfigCore

/// `/v1/me`, `/v1/auth/device*` and `/v1/roleBindings`.
extension AdminClient {
    /// `GET /v1/me`: who this token is, and its roles now.
    public func me() async throws -> Me {
        try await call("GET", "/v1/me").decode(Me.self)
    }

    /// `POST /v1/auth/device`: a device sign-in to show the person.
    public func startDeviceSignIn() async throws -> DeviceAuthorization {
        try await call("POST", "/v1/auth/device", body: Array("{}".utf8)).decode(DeviceAuthorization.self)
    }

    /// `POST /v1/auth/device:token`: the answer as it is (428 while pending, 429 to slow down, 200 at the end).
    public func pollDeviceSignIn(_ deviceCode: String) async throws -> Response {
        try await send(
            "POST", "/v1/auth/device:token", body: APIEncoder.bytes(DeviceTokenRequest(deviceCode: deviceCode)))
    }

    /// `GET /v1/roleBindings`, of one project (and every project's) when given.
    public func listRoleBindings(project: String?) async throws -> RoleBindingList {
        try await call("GET", "/v1/roleBindings", query: project.map { [("project", $0)] } ?? [])
            .decode(RoleBindingList.self)
    }

    /// `POST /v1/roleBindings`.
    public func createRoleBinding(member: String, role: String, project: String?) async throws -> RoleBindingBody {
        let body = CreateRoleBindingRequest(member: member, role: role, project: project)
        return try await call("POST", "/v1/roleBindings", body: APIEncoder.bytes(body)).decode(RoleBindingBody.self)
    }

    /// `DELETE /v1/roleBindings/{id}`; `id` may be given as `roleBindings/<id>`.
    public func deleteRoleBinding(_ id: String) async throws {
        let bare = id.hasPrefix("roleBindings/") ? String(id.dropFirst("roleBindings/".count)) : id
        _ = try await call("DELETE", "/v1/roleBindings/" + Self.escape(bare))
    }

    /// `POST /console/auth/logout` with the personal token: ends that session on the server.
    public func endSession() async throws {
        _ = try await call("POST", "/console/auth/logout", body: Array("{}".utf8))
    }
}
