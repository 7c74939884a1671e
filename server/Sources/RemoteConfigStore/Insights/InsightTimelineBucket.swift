import Foundation
import RemoteConfigCore

/// One bucket of a timeline: distinct instances, in all and per version.
public struct InsightTimelineBucket: Sendable, Equatable {
    public let start: Date
    public let activeInstances: Int
    public let versions: [String: Int]
}
