import Foundation
import RemoteConfigCore

/// Why a rollout action was refused.
public enum RolloutError: Error, Equatable {
    /// The action does not apply to a rollout in `state`.
    case wrongState(id: Int64, state: Rollout.State, action: String)
    /// The template published now has no such parameter.
    case parameterNotFound(String)
    /// Another rollout of the parameter is still live.
    case parameterBusy(parameter: String, rollout: Int64)
    /// The template the action would publish breaks a rule or a limit; for a new rollout, told as problems
    /// of its own inputs (`value`, `audience`) where they are theirs.
    case invalidTemplate([ValidationIssue])
    /// The published template already uses the condition name a new rollout would get.
    case conditionExists(String)
    /// The halt token does not open this rollout.
    case badHaltToken
}
