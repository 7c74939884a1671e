import RemoteConfigAPI

/// `/v1/projects/{p}/rollouts`, in the API module's own types.
extension AdminClient {
    private static func rollouts(_ project: String) -> String { "/v1/projects/\(escape(project))/rollouts" }

    /// `<id>` of `rollouts/<id>` or of a bare id.
    private static func rolloutID(_ id: String) -> String {
        escape(id.hasPrefix("rollouts/") ? String(id.dropFirst("rollouts/".count)) : id)
    }

    /// One page of `GET …/rollouts[?state=]`, newest first, and the next page's token.
    public func listRollouts(project: String, state: String? = nil, pageSize: Int, pageToken: String?) async throws
        -> RolloutList
    {
        var query = [("pageSize", String(pageSize))]
        if let state { query.append(("state", state)) }
        if let pageToken { query.append(("pageToken", pageToken)) }
        return try await call("GET", Self.rollouts(project), query: query).decode(RolloutList.self)
    }

    /// `GET …/rollouts/{id}`.
    public func rollout(project: String, id: String) async throws -> Rollout {
        try await call("GET", Self.rollouts(project) + "/" + Self.rolloutID(id)).decode(Rollout.self)
    }

    /// `POST …/rollouts`: the answer carries the halt token, shown this once.
    public func createRollout(project: String, _ body: RolloutCreate) async throws -> Rollout {
        try await call("POST", Self.rollouts(project), body: try APIEncoder.bytes(body)).decode(Rollout.self)
    }

    /// `POST …/rollouts/{id}:<action>` for `pause`, `resume`, `halt` and `complete`.
    public func rolloutAction(project: String, id: String, action: String) async throws -> Rollout {
        let path = Self.rollouts(project) + "/" + Self.rolloutID(id) + ":" + action
        return try await call("POST", path, body: Array("{}".utf8)).decode(Rollout.self)
    }
}
