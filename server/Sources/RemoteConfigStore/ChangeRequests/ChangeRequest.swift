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

    /// One approval: a person's (through a session or one of their keys) or a key's without an owner.
    public struct Approval: Sendable, Equatable {
        /// The key it was given with; nil for a person's session.
        public let keyId: String?
        public let displayName: String
        public let time: Date
        public let comment: String
        /// The person who approved; nil for a key without an owner.
        public var userId: String? = nil
        public var email: String? = nil
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
    /// The other project's version it promotes; its publish records it.
    public var promotedFrom: PromotedFrom? = nil

    /// `changeRequests/<id>`, the name the API and the audit log use.
    public static func name(_ id: Int64) -> String { "changeRequests/\(id)" }
}
