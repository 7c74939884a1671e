import Foundation

/// A project's link to its App Store listing, with its status.
public struct StoreLink: Sendable, Equatable {
    public let project: String
    public let settings: StoreLinkSettings
    public let status: StoreLinkStatus
    public let updateTime: Date
    /// Changes with every save of the settings (not with a sync's status); its ETag names it.
    public let revision: Int64
}
