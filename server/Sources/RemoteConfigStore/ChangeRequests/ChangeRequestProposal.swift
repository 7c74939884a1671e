import Foundation

/// What a new change request proposes; the template must already be validated as a publish would validate it.
public struct ChangeRequestProposal: Sendable, Equatable {
    /// The template's JSON text without `version`.
    public var templateJSON: String
    public var description: String
    /// The published version it is made against; nil: whatever is published when it is created.
    public var baseVersion: Int64?
    /// When to publish it (once approved); nil: only by `:publish`.
    public var publishTime: Date?
    /// The version it rolls back to, when it proposes a rollback (`templateJSON` is then that version's).
    public var rollbackSource: Int64?
    /// Approved at once by the server itself, whatever the project requires (for server-made requests such
    /// as a store sync with `autoApprove`; the HTTP routes never set it).
    public var autoApproved: Bool
    /// The other project's version it promotes.
    public var promotedFrom: PromotedFrom?

    public init(
        templateJSON: String, description: String, baseVersion: Int64? = nil, publishTime: Date? = nil,
        rollbackSource: Int64? = nil, autoApproved: Bool = false, promotedFrom: PromotedFrom? = nil
    ) {
        self.templateJSON = templateJSON
        self.description = description
        self.baseVersion = baseVersion
        self.publishTime = publishTime
        self.rollbackSource = rollbackSource
        self.autoApproved = autoApproved
        self.promotedFrom = promotedFrom
    }
}
