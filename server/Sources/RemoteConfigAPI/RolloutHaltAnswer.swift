/// The answer of the alert hook `POST /v1/rollouts/{id}:halt`: the version that took the rollout's value away,
/// and whether this call published it (a repeated call publishes nothing and answers the same version).
public struct RolloutHaltAnswer: Codable, Sendable, Equatable {
    /// `rollouts/<id>`.
    public var name: String
    /// `HALTED`.
    public var state: String
    /// The version without the rollout's condition; null when the rollout never published one.
    public var versionNumber: String?
    /// Whether this call published that version.
    public var published: Bool

    public init(name: String, state: String, versionNumber: String?, published: Bool) {
        self.name = name
        self.state = state
        self.versionNumber = versionNumber
        self.published = published
    }

    enum CodingKeys: String, CodingKey {
        case name, state, versionNumber, published
    }

    /// `versionNumber` is written as `null` rather than left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(state, forKey: .state)
        try container.encode(versionNumber, forKey: .versionNumber)
        try container.encode(published, forKey: .published)
    }
}
