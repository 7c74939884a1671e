import Foundation

/// One published, immutable template version as stored: the template JSON (without its `version`
/// object) and the version's metadata in columns.
public struct StoredVersion: Sendable, Equatable {
    public let project: String
    public let versionNumber: Int64
    /// The template's JSON text, exactly as published, without `version`.
    public let templateJSON: String
    public let updateTime: Date
    public let updateUser: String
    public let updateOrigin: UpdateOrigin
    public let updateType: UpdateType
    public let description: String
    public let rollbackSource: Int64?
    /// The other project's version it was promoted from.
    public let promotedFrom: PromotedFrom?
}
