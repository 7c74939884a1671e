/// The answer of `GET /v1/projects/{p}/rollouts`: newest first.
public struct RolloutList: Codable, Sendable, Equatable {
    public var rollouts: [Rollout]

    public init(rollouts: [Rollout]) {
        self.rollouts = rollouts
    }
}
