import ArgumentParser
import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// The window an insights report covers: `--since` and `--until`.
struct WindowOptions: ParsableArguments {
    @Option(help: "Start of the window, RFC 3339 (default: 7 days ago).")
    var since: String?

    @Option(help: "End of the window, RFC 3339 (default: now).")
    var until: String?
}
