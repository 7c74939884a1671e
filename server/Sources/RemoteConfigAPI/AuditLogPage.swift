/// The answer of `GET /v1/projects/{p}/auditLog` and `GET /v1/auditLog`: one page of events, newest first.
public struct AuditLogPage: Codable, Sendable, Equatable {
    public var events: [AuditLogEntry]
    /// The `pageToken` of the next page; absent on the last.
    public var nextPageToken: String?

    public init(events: [AuditLogEntry], nextPageToken: String? = nil) {
        self.events = events
        self.nextPageToken = nextPageToken
    }
}
