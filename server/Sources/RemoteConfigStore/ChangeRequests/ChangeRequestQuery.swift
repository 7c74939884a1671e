import Foundation

/// Filters of a change request listing.
public struct ChangeRequestQuery: Sendable {
    public var state: ChangeRequest.State?
    /// Only requests numbered below this (the page token).
    public var before: Int64?
    /// At most this many requests a page.
    public var limit: Int = 50

    public init(state: ChangeRequest.State? = nil, before: Int64? = nil, limit: Int = 50) {
        self.state = state
        self.before = before
        self.limit = limit
    }
}
