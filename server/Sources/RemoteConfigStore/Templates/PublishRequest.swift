import Foundation

/// What a publish records besides the template.
public struct PublishRequest: Sendable {
    public var templateJSON: String
    /// The version the caller last saw (from its ETag); nil forces (`If-Match: *`).
    public var expectedVersion: Int64?
    public var updateType: UpdateType
    public var updateUser: String
    public var updateOrigin: UpdateOrigin
    public var description: String
    public var rollbackSource: Int64?
    /// The change request this publish carries out: only such a publish passes a project that requires
    /// approval.
    public var changeRequest: Int64?
    /// The rollout this publish is a step, start, halt or completion of: its plan was approved (or needed no
    /// approval), so it passes a project that requires approval, it does not pause itself as an edit would, and
    /// it may carry the rollout's condition whatever the rollout's state.
    public var rollout: Int64?
    /// The other project's version this publish promotes.
    public var promotedFrom: PromotedFrom?

    public init(
        templateJSON: String, expectedVersion: Int64?, updateType: UpdateType, updateUser: String,
        updateOrigin: UpdateOrigin = .restAPI, description: String = "", rollbackSource: Int64? = nil,
        changeRequest: Int64? = nil, rollout: Int64? = nil, promotedFrom: PromotedFrom? = nil
    ) {
        self.templateJSON = templateJSON
        self.expectedVersion = expectedVersion
        self.updateType = updateType
        self.updateUser = updateUser
        self.updateOrigin = updateOrigin
        self.description = description
        self.rollbackSource = rollbackSource
        self.changeRequest = changeRequest
        self.rollout = rollout
        self.promotedFrom = promotedFrom
    }
}
