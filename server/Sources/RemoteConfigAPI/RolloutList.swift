/// The answer of `GET /v1/projects/{p}/rollouts`: one page, newest first, and the token of the next page when
/// there is one.
public struct RolloutList: Codable, Sendable, Equatable {
    public var rollouts: [Rollout]
    public var nextPageToken: String?

    public init(rollouts: [Rollout], nextPageToken: String? = nil) {
        self.rollouts = rollouts
        self.nextPageToken = nextPageToken
    }
}
