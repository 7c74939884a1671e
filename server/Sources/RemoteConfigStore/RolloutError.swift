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
    /// The template the action would publish breaks a rule or a limit.
    case invalidTemplate([ValidationIssue])
    /// The halt token does not open this rollout.
    case badHaltToken
}
