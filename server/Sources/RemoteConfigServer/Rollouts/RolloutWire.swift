import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// Rollouts on the wire: the store's rollout as the API's body.
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
}
