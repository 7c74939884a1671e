import Foundation

/// Who made a change: the acting key's id and its display name at the time.
public struct AuditActor: Sendable, Equatable {
    /// The key's id (`<id>` of `apiKeys/<id>`); nil for the server's own changes.
    public let keyId: String?
    public let displayName: String

    public init(keyId: String?, displayName: String) {
        self.keyId = keyId
        self.displayName = displayName
    }
}
