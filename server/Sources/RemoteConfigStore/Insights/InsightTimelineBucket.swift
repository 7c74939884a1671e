import Foundation
import RemoteConfigCore

/// One bucket of a timeline: instances, in all and per version.
public struct InsightTimelineBucket: Sendable, Equatable {
    public let start: Date
    public let activeInstances: Int
    public let versions: [String: Int]
    /// Whether any of its figures came from an import rather than from counted fetches.
    public let imported: Bool
}
