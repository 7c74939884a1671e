import Foundation

/// A proposed publish: an immutable snapshot of a template, reviewed by other keys, published now or at a
/// set time.
public struct ChangeRequest: Sendable, Equatable {
    /// Where a change request is in its life.
    public enum State: String, Sendable, CaseIterable {
        /// Waiting for approvals (or, without approval required, for someone to publish it).
        case open = "OPEN"
        /// Approved enough; published by `:publish`.
        case approved = "APPROVED"
        /// Approved (or needing no approval) and waiting for its `publishTime`.
        case scheduled = "SCHEDULED"
        case published = "PUBLISHED"
        case rejected = "REJECTED"
        case cancelled = "CANCELLED"

        /// Whether nothing more can happen to it.
        public var isFinal: Bool { self == .published || self == .rejected || self == .cancelled }
    }

    /// One key's approval.
    public struct Approval: Sendable, Equatable {
        public let keyId: String
        public let displayName: String
        public let time: Date
        public let comment: String
    }

    /// Who rejected or cancelled it.
    public struct Closure: Sendable, Equatable {
        public let keyId: String?
        public let displayName: String
        public let time: Date
        public let comment: String
    }

    public let id: Int64
    public let project: String
    public let state: State
    public let description: String
    /// The key that opened it (`keyId` nil: the server itself).
    public let author: AuditActor
    /// The published version it was made against (0: none).
    public let baseVersion: Int64
    /// The template's JSON text without `version`; nil in listings, which leave it out.
    public let templateJSON: String?
    public let rollbackSource: Int64?
    public let publishTime: Date?
    public let createTime: Date
    public let updateTime: Date
    public let publishedVersion: Int64?
    /// Oldest first.
    public let approvals: [Approval]
    public let closure: Closure?
    /// Approved by the server when it was opened (a store sync with `autoApprove`).
    public let autoApproved: Bool

    /// `changeRequests/<id>`, the name the API and the audit log use.
    public static func name(_ id: Int64) -> String { "changeRequests/\(id)" }
}

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

    public init(
        templateJSON: String, description: String, baseVersion: Int64? = nil, publishTime: Date? = nil,
        rollbackSource: Int64? = nil, autoApproved: Bool = false
    ) {
        self.templateJSON = templateJSON
        self.description = description
        self.baseVersion = baseVersion
        self.publishTime = publishTime
        self.rollbackSource = rollbackSource
        self.autoApproved = autoApproved
    }
}

/// Why a change request action was refused.
public enum ChangeRequestError: Error, Equatable {
    /// The action does not apply to a request in `state`.
    case wrongState(id: Int64, state: ChangeRequest.State, action: String)
    /// The author tried to approve their own request.
    case selfApproval(id: Int64)
    /// The approving key stands for the author: minted by the author's key after the request was opened, or
    /// bearing the author's display name. `why` says which, in a clause.
    case selfApprovalByProxy(id: Int64, why: String)
    /// This key approved the request already.
    case alreadyApproved(id: Int64)
    /// Only the author or an admin may cancel.
    case notAuthor(id: Int64)
    /// The project requires approval and the request does not have enough.
    case notApproved(id: Int64, approvals: Int, required: Int)
    /// Another version was published after the request's base (publish with force to go ahead).
    case baseChanged(id: Int64, base: Int64, latest: Int64)
}

/// Filters of a change request listing.
public struct ChangeRequestQuery: Sendable {
    public var state: ChangeRequest.State?
    /// Only requests numbered below this (the page token).
    public var before: Int64?
    public var limit: Int = 50

    public init(state: ChangeRequest.State? = nil, before: Int64? = nil, limit: Int = 50) {
        self.state = state
        self.before = before
        self.limit = limit
    }
}
