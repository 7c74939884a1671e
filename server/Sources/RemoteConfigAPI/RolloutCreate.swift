/// The body of `POST /v1/projects/{p}/rollouts`: what to roll out, to whom, and how fast.
public struct RolloutCreate: Codable, Sendable, Equatable {
    /// An existing parameter of the published template.
    public var parameter: String
    /// The new value, as a string that fits the parameter's type.
    public var value: String
    /// A condition expression narrowing who may get the value; absent for everyone.
    public var audience: String?
    /// Percentages increasing, above 0, at most 100.
    public var steps: [RolloutStep]
    public var description: String?

    /// The fields a body may carry; anything else is refused rather than ignored.
    public static let fields: Set<String> = ["parameter", "value", "audience", "steps", "description"]

    public init(
        parameter: String, value: String, audience: String? = nil, steps: [RolloutStep], description: String? = nil
    ) {
        self.parameter = parameter
        self.value = value
        self.audience = audience
        self.steps = steps
        self.description = description
    }
}
