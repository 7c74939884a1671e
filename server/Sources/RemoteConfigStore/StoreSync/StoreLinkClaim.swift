import Foundation

/// A link held by one sync: `token` proves the holder on every write of the sync, so a replica whose lease ran
/// out (and another took over) writes nothing.
public struct StoreLinkClaim: Sendable {
    public let link: StoreLink
    public let token: UUID
}
