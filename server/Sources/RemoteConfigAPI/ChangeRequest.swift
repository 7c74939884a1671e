import Foundation
import RemoteConfigCore

/// A change request as `…/remoteConfig/changeRequests` answers it. `template` (a template payload, kept as
/// `JSONValue` for its order and numbers) when it is read, `diff` against the published template from the route
/// that reads one.
public struct ChangeRequest: Codable, Sendable, Equatable {
    /// `changeRequests/<id>`.
    public var name: String
    /// `OPEN`, `APPROVED`, `SCHEDULED`, `PUBLISHED`, `REJECTED`, `CANCELLED`, …
    public var state: String
    public var description: String
    public var author: ActingKey
    /// The published version it was proposed against, a decimal string.
    public var baseVersionNumber: String
    public var createTime: Date
    public var updateTime: Date
    /// When the server publishes it by itself; null when `changes publish` does.
    public var publishTime: Date?
    public var template: JSONValue?
    /// The version it rolls back to, a decimal string.
    public var rollbackSource: String?
    /// True when the project needed no approval; absent otherwise.
    public var autoApproved: Bool?
    public var approvals: [ChangeRequestReview]
    /// The version it became, a decimal string; null until published.
    public var publishedVersionNumber: String?
    public var rejection: ChangeRequestReview?
    public var cancellation: ChangeRequestReview?
    public var diff: JSONValue?
    /// The other project's version it promotes; absent otherwise.
    public var promotedFrom: TemplateVersionInfo.Source?

    public init(
        name: String, state: String, description: String, author: ActingKey, baseVersionNumber: String,
        createTime: Date, updateTime: Date, publishTime: Date? = nil, template: JSONValue? = nil,
        rollbackSource: String? = nil, autoApproved: Bool? = nil, approvals: [ChangeRequestReview] = [],
        publishedVersionNumber: String? = nil, rejection: ChangeRequestReview? = nil,
        cancellation: ChangeRequestReview? = nil, diff: JSONValue? = nil
    ) {
        self.name = name
        self.state = state
        self.description = description
        self.author = author
        self.baseVersionNumber = baseVersionNumber
        self.createTime = createTime
        self.updateTime = updateTime
        self.publishTime = publishTime
        self.template = template
        self.rollbackSource = rollbackSource
        self.autoApproved = autoApproved
        self.approvals = approvals
        self.publishedVersionNumber = publishedVersionNumber
        self.rejection = rejection
        self.cancellation = cancellation
        self.diff = diff
    }

    /// The id without `changeRequests/`.
    public var id: String {
        name.hasPrefix("changeRequests/") ? String(name.dropFirst("changeRequests/".count)) : name
    }

    private enum CodingKeys: String, CodingKey {
        case name, state, description, author, baseVersionNumber, createTime, updateTime, publishTime, template
        case rollbackSource, autoApproved, approvals, publishedVersionNumber, rejection, cancellation, diff
        case promotedFrom
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(state, forKey: .state)
        try container.encode(description, forKey: .description)
        try container.encode(author, forKey: .author)
        try container.encode(baseVersionNumber, forKey: .baseVersionNumber)
        try container.encode(createTime, forKey: .createTime)
        try container.encode(updateTime, forKey: .updateTime)
        // Null rather than absent, as the answers always wrote them.
        try container.encode(publishTime, forKey: .publishTime)
        try container.encodeIfPresent(template, forKey: .template)
        try container.encodeIfPresent(rollbackSource, forKey: .rollbackSource)
        try container.encodeIfPresent(autoApproved, forKey: .autoApproved)
        try container.encode(approvals, forKey: .approvals)
        try container.encode(publishedVersionNumber, forKey: .publishedVersionNumber)
        try container.encodeIfPresent(rejection, forKey: .rejection)
        try container.encodeIfPresent(cancellation, forKey: .cancellation)
        try container.encodeIfPresent(diff, forKey: .diff)
        try container.encodeIfPresent(promotedFrom, forKey: .promotedFrom)
    }
}
