import Foundation

/// A write that named a revision (its `If-Match`) which is no longer the current one: nothing was written.
public struct StaleRevision: Error, Equatable {
    /// What was written, as a person calls it ("webhook", "store link").
    public let what: String
    /// The revision there is now (0 for none).
    public let current: Int64

    public init(_ what: String, current: Int64) {
        self.what = what
        self.current = current
    }
}
