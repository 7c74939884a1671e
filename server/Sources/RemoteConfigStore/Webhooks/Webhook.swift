import Foundation

/// One webhook of a project, as stored; its secrets never leave the server except at creation and rotation.
public struct Webhook: Sendable, Equatable {
    public let id: String
    public let project: String
    public let url: String
    public let events: [String]
    public let format: String
    public let description: String
    public let enabled: Bool
    public let createTime: Date
    /// The secrets that sign now: the current one first, then the previous one during its 24 hours.
    public let activeSecrets: [String]
    /// Changes with every change of the fields people set (not with a rotation); its ETag names it.
    public let revision: Int64
}
