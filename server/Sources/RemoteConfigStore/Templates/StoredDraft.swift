import Foundation

/// A project's server-side draft.
public struct StoredDraft: Sendable, Equatable {
    public let project: String
    public let templateJSON: String
    /// Changes on every save; from one sequence, so never reused across drafts.
    public let revision: Int64
    /// The published version the draft was copied from (0: none).
    public let baseVersion: Int64
    public let updateTime: Date
    public let updatedBy: String
    /// The other project's version it promotes, when a promotion made it; its publish records it.
    public var promotedFrom: PromotedFrom? = nil
}
