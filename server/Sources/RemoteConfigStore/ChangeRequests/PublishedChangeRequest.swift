import Foundation
import Logging
import PostgresNIO

/// A change request that was just published, with the version it became.
public struct PublishedChangeRequest: Sendable {
    public let request: ChangeRequest
    public let version: StoredVersion
}
