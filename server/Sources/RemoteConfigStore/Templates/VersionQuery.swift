import Foundation

/// Filters of `:listVersions`.
public struct VersionQuery: Sendable {
    /// At most this many versions a page.
    public var pageSize: Int = 100
    /// Only versions numbered below this (the page token).
    public var before: Int64?
    /// Only versions numbered at most this.
    public var endVersionNumber: Int64?
    public var startTime: Date?
    public var endTime: Date?

    public init() {}
}
