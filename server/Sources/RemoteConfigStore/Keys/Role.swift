import Foundation

/// What a key may do. Admin-side roles are ordered: viewer < editor < admin; `client` only fetches.
public enum Role: String, Sendable, CaseIterable, Codable {
    case viewer, editor, admin, client

    /// Whether this role includes everything `other` may do on the admin side.
    public func covers(_ other: Role) -> Bool {
        guard self != .client, other != .client else { return self == other }
        return rank >= other.rank
    }

    private var rank: Int {
        switch self {
        case .viewer: 1
        case .editor: 2
        case .admin: 3
        case .client: 0
        }
    }
}
