import Foundation
import RemoteConfigCore

/// What decided parameters' values and which conditions matched, over a window.
public struct InsightParameterSources: Sendable, Equatable {
    /// One source of one parameter.
    public struct Source: Sendable, Equatable {
        /// `CONDITION`, `DEFAULT` or `IN_APP_DEFAULT`.
        public let source: String
        /// For `CONDITION`.
        public let condition: String?
        public let answers: Int
    }

    /// All answers in the window.
    public let answers: Int
    /// Per parameter, its sources, most answers first.
    public let parameters: [String: [Source]]
    /// Per condition, the answers it was true for.
    public let conditions: [String: Int]
}
