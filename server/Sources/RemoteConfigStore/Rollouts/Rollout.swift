import Foundation
import RemoteConfigCore

/// A rollout: a plan the server carries out, giving a parameter a new value for a growing share of app
/// instances, one published step at a time, until someone completes or halts it.
public struct Rollout: Sendable, Equatable {
    /// Where a rollout is in its life.
    public enum State: String, Sendable, CaseIterable {
        /// Waiting for its change request to be approved and published (the project requires approval).
        case proposed = "PROPOSED"
        /// Publishing its steps as they come due.
        case running = "RUNNING"
        /// Stopped where it is, by a person or by someone else's edit of its parameter or condition.
        case paused = "PAUSED"
        /// Stopped for good: its condition is gone, every app has the value it had before.
        case halted = "HALTED"
        /// Done: the value is the parameter's default and the condition is gone.
        case completed = "COMPLETED"

        /// Whether nothing more can happen to it.
        public var isFinal: Bool { self == .halted || self == .completed }
    }

    /// Why a rollout is paused.
    public enum PauseReason: String, Sendable {
        /// A person paused it.
        case manual = "MANUAL"
        /// A publish by someone else changed its parameter or its condition.
        case edited = "EDITED"
        /// A step came due but could not be published (the parameter is gone, or the template would break a
        /// limit); resuming tries it again.
        case stepFailed = "STEP_FAILED"
    }

    /// One step of the plan: a share of app instances, held for a while before the next.
    public struct Step: Sendable, Equatable, Codable {
        public var percent: Double
        /// How long this step stays before the next is published; nil (the last step) or 0: no wait.
        public var holdSeconds: Int64?

        public init(percent: Double, holdSeconds: Int64? = nil) {
            self.percent = percent
            self.holdSeconds = holdSeconds
        }
    }

    /// A step as it was published.
    public struct PublishedStep: Sendable, Equatable {
        public let step: Int
        public let percent: Double
        public let versionNumber: Int64
        public let time: Date
    }

    public let id: Int64
    public let project: String
    public let parameter: String
    public let value: String
    public let audience: String?
    public let steps: [Step]
    public let description: String
    public let state: State
    /// The step published last; -1 before the first.
    public let currentStep: Int
    public let nextStepTime: Date?
    public let pauseReason: PauseReason?
    public let author: AuditActor
    /// The change request that carries the plan, when the project required approval.
    public let changeRequest: Int64?
    /// The change request that carries its completion, when the project required approval for it; cleared
    /// when that request is rejected or cancelled.
    public let completionRequest: Int64?
    /// The version that halted or completed it.
    public let endVersion: Int64?
    public let endTime: Date?
    public let createTime: Date
    public let updateTime: Date
    /// Published steps, oldest first.
    public let history: [PublishedStep]

    /// `rollouts/<id>`, the name the API and the audit log use.
    public static func name(_ id: Int64) -> String { "rollouts/\(id)" }

    /// The condition the rollout owns, also its percent seed.
    public var conditionName: String { RolloutTemplate.conditionName(id: id) }

    /// What the rollout does to a template.
    public var template: RolloutTemplate {
        RolloutTemplate(parameter: parameter, value: value, audience: audience, conditionName: conditionName)
    }

    /// The share of the step published last (0 before the first).
    public var percent: Double { currentStep >= 0 && currentStep < steps.count ? steps[currentStep].percent : 0 }
}
