import Foundation

/// A write that named a revision (its `If-Match`) which is no longer the current one: nothing was written.
public struct StaleRevision: Error, Equatable {
    /// The revision there is now (0 for none).
    public let current: Int64

    public init(current: Int64) {
        self.current = current
    }
}
