import Foundation

/// One recorded change.
public struct AuditEvent: Sendable, Equatable {
    public let id: Int64
    public let time: Date
    /// The project changed; nil for changes of no single project (a key for all projects).
    public let project: String?
    public let actor: String
    /// `apiKeys/<id>` of the acting key; nil for events recorded before keys were recorded.
    public let actorKey: String?
    /// `users/<id>` of the person behind it; nil for keys without an owner and the server's own work.
    public let actorUser: String?
    /// The person's email at the time.
    public let actorEmail: String?
    public let action: String
    /// The event's details as JSON text.
    public let detailJSON: String
}
