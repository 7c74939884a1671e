import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// A failure the command line explains itself (a stale file, a missing parameter), with its exit status.
struct CommandFailure: Error {
    var status: ExitStatus
    var message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}
