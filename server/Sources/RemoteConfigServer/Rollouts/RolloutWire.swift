import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// Rollouts on the wire: the store's rollout as the API's body, its errors as API errors.
enum RolloutWire {
    /// `rollout` as the API shows it; `haltToken` only in the answer that created it. `changeRequest` is the
    /// request that carries its completion while one is asked for, else the one that carried its plan.
    static func body(_ rollout: RemoteConfigStore.Rollout, haltToken: String? = nil) -> RemoteConfigAPI.Rollout {
        RemoteConfigAPI.Rollout(
            name: RemoteConfigStore.Rollout.name(rollout.id), state: rollout.state.rawValue,
            parameter: rollout.parameter, value: rollout.value, audience: rollout.audience,
            steps: rollout.steps.map { RolloutStep(percent: $0.percent, holdSeconds: $0.holdSeconds) },
            description: rollout.description, currentStep: rollout.currentStep, percent: rollout.percent,
            conditionName: rollout.conditionName, nextStepTime: rollout.nextStepTime.map(JSONResponse.timestamp),
            pauseReason: rollout.pauseReason?.rawValue,
            changeRequest: (rollout.completionRequest ?? rollout.changeRequest).map(ChangeRequest.name),
            endVersionNumber: rollout.endVersion.map { String($0) },
            endTime: rollout.endTime.map(JSONResponse.timestamp),
            createTime: JSONResponse.timestamp(rollout.createTime),
            updateTime: JSONResponse.timestamp(rollout.updateTime),
            author: ChangeRequestJSON.actor(rollout.author),
            history: rollout.history.map {
                .init(
                    step: $0.step, percent: $0.percent, versionNumber: String($0.versionNumber),
                    time: JSONResponse.timestamp($0.time))
            },
            haltToken: haltToken)
    }

    /// Runs a store call, answering its refusals as the API's errors.
    static func mapping<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as RolloutError {
            throw apiError(error)
        }
    }

    /// The answer to a rollout action its state, its parameter or its template refuses.
    static func apiError(_ error: RolloutError) -> APIError {
        switch error {
        case .wrongState(let id, let state, let action):
            return .aborted(
                "\(RemoteConfigStore.Rollout.name(id)) is \(state.rawValue); it cannot \(action) now",
                [ErrorDetail(field: "state", reason: "INVALID_STATE")])
        case .parameterNotFound(let parameter):
            return .invalidField(
                "parameter", reason: "PARAMETER_NOT_FOUND",
                "the published template has no parameter \(parameter)")
        case .parameterBusy(let parameter, let other):
            return APIError(
                .conflict,
                "\(RemoteConfigStore.Rollout.name(other)) is still rolling out \(parameter); halt or complete it first",
                details: [ErrorDetail(field: "parameter", reason: "ROLLOUT_IN_PROGRESS")])
        case .invalidTemplate(let issues):
            return TemplateHTTP.apiError(.invalid(issues))
        case .conditionExists(let name):
            var error = APIError.alreadyExists(
                "the published template already uses the condition \(name), which this rollout would own; remove it, and every value for it, first"
            )
            error.details = [ErrorDetail(field: "conditionName", reason: "CONDITION_EXISTS")]
            return error
        case .badHaltToken:
            return .unauthenticated("this halt token does not open this rollout")
        }
    }
}
