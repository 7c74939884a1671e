/// `GET …/remoteConfig:listVersions`: one page of versions, newest first, and the token of the next page.
public struct TemplateVersionList: Codable, Sendable, Equatable {
    public var versions: [TemplateVersionInfo]
    /// Absent on the last page.
    public var nextPageToken: String?

    /// Creates a page.
    public init(versions: [TemplateVersionInfo], nextPageToken: String? = nil) {
        self.versions = versions
        self.nextPageToken = nextPageToken
    }
}
