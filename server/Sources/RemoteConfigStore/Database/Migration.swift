import Crypto
import Foundation
import RemoteConfigCore

/// One numbered SQL file of `sql/`.
public struct Migration: Sendable, Equatable {
    public let name: String
    public let sql: String

    /// SHA-256 of the file, hex: an applied migration whose file changed stops start-up.
    public var checksum: String {
        SHA256.hash(data: Data(sql.utf8)).hexEncoded
    }

    public init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }

    /// The migrations shipped with the server (the repository's `sql/` folder), in order.
    public static func bundled() throws -> [Migration] {
        guard let folder = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw MigrationError(description: "the bundled sql/ migrations are missing")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }
        return try names.sorted().map { name in
            Migration(name: name, sql: try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
        }
    }
}
