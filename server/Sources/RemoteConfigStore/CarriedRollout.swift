import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

/// A proposed rollout that the change request being published starts.
struct CarriedRollout: Sendable {
    let rollout: Rollout
    /// The first step over the template published now: only the rollout's own condition and value change,
    /// whatever was published since the change request was opened.
    let templateJSON: String
}
