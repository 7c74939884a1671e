import RemoteConfigAPI
import RemoteConfigCore

/// `/v1/projects/{p}/remoteConfig/changeRequests…`: propose, list, read, approve, reject, cancel, publish.
extension AdminClient {
    static func changeRequestsPath(_ project: String, _ suffix: String = "") -> String {
        templatePath(project, "/changeRequests") + suffix
    }

    /// The bare number of a change request given as `changeRequests/<id>` or `<id>`.
    public static func changeRequestID(_ text: String) -> String {
        text.hasPrefix("changeRequests/") ? String(text.dropFirst("changeRequests/".count)) : text
    }

    /// `POST …/changeRequests` with `template`; `publishTime` (RFC 3339) schedules it.
    public func createChangeRequest(
        project: String, template: JSONObject, description: String, publishTime: String?
    ) async throws -> ChangeRequest {
        let body = CreateChangeRequestRequest(
            description: description, template: .object(template), publishTime: publishTime)
        return try await call("POST", Self.changeRequestsPath(project), body: APIEncoder.bytes(body)).decode(
            ChangeRequest.self)
    }

    /// One page of `GET …/changeRequests[?state=]`, newest first, and the next page's token.
    public func listChangeRequests(project: String, state: String?, pageSize: Int, pageToken: String?)
        async throws -> ChangeRequestList
    {
        var query = [("pageSize", String(pageSize))]
        if let state { query.append(("state", state)) }
        if let pageToken { query.append(("pageToken", pageToken)) }
        return try await call("GET", Self.changeRequestsPath(project), query: query).decode(ChangeRequestList.self)
    }

    /// `GET …/changeRequests/{id}`: the request with its template and `diff` against the published template.
    public func changeRequest(project: String, id: String) async throws -> ChangeRequest {
        try await call("GET", Self.changeRequestsPath(project, "/" + Self.escape(Self.changeRequestID(id)))).decode(
            ChangeRequest.self)
    }

    /// `POST …/changeRequests/{id}:<action>` (`approve`, `reject`, `cancel`, `publish`): the request afterwards.
    public func actOnChangeRequest(
        project: String, id: String, action: String, comment: String? = nil, force: Bool = false
    ) async throws -> ChangeRequest {
        // Only a review reads a body (`{"comment"}`); cancel and publish take none.
        var body: [UInt8]?
        if action == "approve" || action == "reject" { body = try APIEncoder.bytes(ReviewRequest(comment: comment)) }
        let path = Self.changeRequestsPath(project, "/" + Self.escape(Self.changeRequestID(id)) + ":" + action)
        return try await call("POST", path, query: force ? [("force", "true")] : [], body: body).decode(
            ChangeRequest.self)
    }
}
