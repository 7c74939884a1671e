import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

/// A rollout change that the change request being published carries: a proposed rollout's start, or a
/// running rollout's completion.
struct CarriedRollout: Sendable {
    /// What publishing the change request does to the rollout.
    enum Change: Sendable {
        /// Publishes its first step and starts it.
        case start
        /// Publishes its value as the default for everyone and completes it.
        case completion
    }

    let rollout: Rollout
    let change: Change
    /// The change over the template published now: only the rollout's own condition and value change,
    /// whatever was published since the change request was opened.
    let templateJSON: String
}
