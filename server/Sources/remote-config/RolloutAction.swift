import ArgumentParser
import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient

/// The arguments of an action on one rollout.
struct RolloutAction: ParsableArguments {
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var project: ProjectOption
    @Argument(help: "The rollout (rollouts/<id> or <id>).") var id: String

    func run(_ action: String) async throws {
        try await runAdmin {
            let rollout = try await connection.client().rolloutAction(project: project.project, id: id, action: action)
            try Rollouts.print(rollout, json: connection.json)
        }
    }
}
