import RemoteConfigAPI
import RemoteConfigCore

/// Promotion between environments and the drift between two projects.
extension AdminClient {
    /// `POST /v1/projects/{to}/remoteConfig:promote` with `If-Match: *` (the server publishes against the
    /// version it planned from, so nothing published meanwhile is overwritten): the three-way table and what it
    /// made.
    public func promote(into project: String, _ request: PromoteRequest) async throws -> JSONObject {
        try await call(
            "POST", Self.templatePath(project, ":promote"), body: try APIEncoder.bytes(request),
            headers: ["Content-Type": "application/json", "If-Match": "*"]
        ).object()
    }

    /// `GET …/remoteConfig:compare?with=`: every parameter and condition of the two published templates.
    public func compare(project: String, with other: String) async throws -> JSONObject {
        try await call("GET", Self.templatePath(project, ":compare"), query: [("with", other)]).object()
    }
}
