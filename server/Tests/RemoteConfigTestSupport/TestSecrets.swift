import Foundation
import Logging
import RemoteConfigStore

/// The one secrets key of the test suite: every in-process application and every server process a test starts
/// uses it (unless the test gives another), so several of them on one database agree, as replicas must.
public enum TestSecrets {
    /// The key, 32 bytes in base64.
    public static let key = Data((0..<32).map { UInt8(0xA0 &+ $0) }).base64EncodedString()
    /// Its sealer.
    public static let sealer: SecretSealer = {
        do { return try SecretSealer(base64: key) } catch { fatalError("the test key is a key: \(error)") }
    }()

    /// The secrets of the database at `url` under the test key, made ready as a server's start makes them.
    public static func prepare(_ url: DatabaseURL, sealer: SecretSealer = sealer) async throws -> ServerSecrets {
        try await ServerSecrets.prepare(url, sealer: sealer, logger: TestCluster.logger)
    }
}
