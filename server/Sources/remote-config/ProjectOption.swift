import ArgumentParser
import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// `-p` / `--project`, for the commands on one project's template.
struct ProjectOption: ParsableArguments {
    @Option(name: [.customShort("p"), .long], help: "The project id.")
    var project: String
}
