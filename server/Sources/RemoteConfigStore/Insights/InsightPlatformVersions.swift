import Foundation
import RemoteConfigCore

/// One platform's versions over a window.
public struct InsightPlatformVersions: Sendable, Equatable {
    public let platform: String
    /// Distinct instances of the platform (the union of its versions' sketches).
    public let activeInstances: Int
    public let answers: Int
    /// Newest first by version order, `(other)` and `(invalid)` last.
    public let versions: [Version]

    /// One version's figures.
    public struct Version: Sendable, Equatable {
        public let version: String
        public let activeInstances: Int
        public let answers: Int
    }
}
