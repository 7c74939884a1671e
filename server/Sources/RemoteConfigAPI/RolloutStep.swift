/// One step of a rollout's plan: a share of app instances, held for a while before the next step.
public struct RolloutStep: Codable, Sendable, Equatable {
    /// The share of app instances (of the audience) that get the value, above 0 and at most 100.
    public var percent: Double
    /// Seconds this step stays before the next is published; absent on the last step (it stays until completed).
    public var holdSeconds: Int64?

    public init(percent: Double, holdSeconds: Int64? = nil) {
        self.percent = percent
        self.holdSeconds = holdSeconds
    }
}
