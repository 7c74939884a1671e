import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

extension WebhookEvents {
    /// The facts of a `rollout.*` event.
    public struct RolloutChanged: Codable, Sendable, Equatable {
        public var rollout: String
        public var state: String
        public var parameter: String
        public var value: String
        public var audience: String?
        public var percent: Double
        public var conditionName: String
        /// The version the event published (the first step, the halt or the completion), when it published one.
        public var versionNumber: String?
    }

    /// Records `event` (`rollout.started`, `.halted`, `.completed`) for `rollout` as it is now.
    static func rollout(
        _ event: WebhookEventType, _ rollout: Rollout, version: Int64?, actor: AuditActor,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let facts = RolloutChanged(
            rollout: Rollout.name(rollout.id), state: rollout.state.rawValue, parameter: rollout.parameter,
            value: rollout.value, audience: rollout.audience, percent: rollout.percent,
            conditionName: rollout.conditionName, versionNumber: version.map { String($0) })
        try await WebhookStore.enqueue(
            rollout.project, type: event, actor: actor, dataJSON: try json(facts), on: connection,
            logger: logger)
    }
}
