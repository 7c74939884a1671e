import RemoteConfigAPI
import RemoteConfigCore

/// A template as read or published: its JSON (with `version` once published) and its ETag.
public struct TemplateWithETag: Sendable {
    public var template: JSONObject
    public var etag: String

    /// The published version number, nil before the first publish.
    public var versionNumber: Int64? { TemplateFile.versionNumber(of: template) }
}
