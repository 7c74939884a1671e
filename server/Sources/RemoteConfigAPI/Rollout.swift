/// A rollout as the admin API answers it.
public struct Rollout: Codable, Sendable, Equatable {
    /// Who created it.
    public typealias Author = ActingKey

    /// A step as it was published.
    public struct HistoryEntry: Codable, Sendable, Equatable {
        public var step: Int
        public var percent: Double
        public var versionNumber: String
        public var time: String

        public init(step: Int, percent: Double, versionNumber: String, time: String) {
            self.step = step
            self.percent = percent
            self.versionNumber = versionNumber
            self.time = time
        }
    }

    /// `rollouts/<id>`.
    public var name: String
    /// `PROPOSED`, `RUNNING`, `PAUSED`, `HALTED` or `COMPLETED`.
    public var state: String
    public var parameter: String
    public var value: String
    public var audience: String?
    public var steps: [RolloutStep]
    public var description: String
    /// The step published last (-1 while proposed).
    public var currentStep: Int
    /// Its share (0 while proposed).
    public var percent: Double
    /// `rollout_<id>`: the condition the rollout owns, and its percent seed.
    public var conditionName: String
    /// When the next step is due; null when none is (the last step, or not running).
    public var nextStepTime: String?
    /// `MANUAL`, `EDITED` or `STEP_FAILED` while paused.
    public var pauseReason: String?
    /// `changeRequests/<id>` carrying its completion once asked for under approval, else the one that carried
    /// its plan when the project required approval.
    public var changeRequest: String?
    /// The version that halted or completed it.
    public var endVersionNumber: String?
    public var endTime: String?
    public var createTime: String
    public var updateTime: String
    public var author: Author
    /// Published steps, oldest first.
    public var history: [HistoryEntry]
    /// The secret of the alert hook `POST /v1/rollouts/{id}:halt`: only in the answer that created it.
    public var haltToken: String?

    public init(
        name: String, state: String, parameter: String, value: String, audience: String?, steps: [RolloutStep],
        description: String, currentStep: Int, percent: Double, conditionName: String, nextStepTime: String?,
        pauseReason: String?, changeRequest: String?, endVersionNumber: String?, endTime: String?,
        createTime: String, updateTime: String, author: Author, history: [HistoryEntry], haltToken: String? = nil
    ) {
        self.name = name
        self.state = state
        self.parameter = parameter
        self.value = value
        self.audience = audience
        self.steps = steps
        self.description = description
        self.currentStep = currentStep
        self.percent = percent
        self.conditionName = conditionName
        self.nextStepTime = nextStepTime
        self.pauseReason = pauseReason
        self.changeRequest = changeRequest
        self.endVersionNumber = endVersionNumber
        self.endTime = endTime
        self.createTime = createTime
        self.updateTime = updateTime
        self.author = author
        self.history = history
        self.haltToken = haltToken
    }

    enum CodingKeys: String, CodingKey {
        case name, state, parameter, value, audience, steps, description, currentStep, percent, conditionName
        case nextStepTime, pauseReason, changeRequest, endVersionNumber, endTime, createTime, updateTime, author
        case history, haltToken
    }

    /// Optional fields are written as `null` rather than left out, so every reader finds every field; the halt
    /// token is the exception, present only once.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(state, forKey: .state)
        try container.encode(parameter, forKey: .parameter)
        try container.encode(value, forKey: .value)
        try container.encode(audience, forKey: .audience)
        try container.encode(steps, forKey: .steps)
        try container.encode(description, forKey: .description)
        try container.encode(currentStep, forKey: .currentStep)
        try container.encode(percent, forKey: .percent)
        try container.encode(conditionName, forKey: .conditionName)
        try container.encode(nextStepTime, forKey: .nextStepTime)
        try container.encode(pauseReason, forKey: .pauseReason)
        try container.encode(changeRequest, forKey: .changeRequest)
        try container.encode(endVersionNumber, forKey: .endVersionNumber)
        try container.encode(endTime, forKey: .endTime)
        try container.encode(createTime, forKey: .createTime)
        try container.encode(updateTime, forKey: .updateTime)
        try container.encode(author, forKey: .author)
        try container.encode(history, forKey: .history)
        try container.encodeIfPresent(haltToken, forKey: .haltToken)
    }
}
