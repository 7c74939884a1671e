import Foundation
import RemoteConfigCore

/// What a new rollout is to do; checked by the caller (parameter, value, audience, steps) before it is created.
public struct RolloutPlan: Sendable, Equatable {
    public var parameter: String
    public var value: String
    public var audience: String?
    public var steps: [Rollout.Step]
    public var description: String

    public init(parameter: String, value: String, audience: String?, steps: [Rollout.Step], description: String) {
        self.parameter = parameter
        self.value = value
        self.audience = audience
        self.steps = steps
        self.description = description
    }
}
