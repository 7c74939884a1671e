import Foundation

/// The shared table of version comparisons (`Tests/Fixtures/version-comparisons.json`), which the SDK's tests
/// and the server's condition tests read too.
public enum VersionTable {
    /// One row: two version texts and how they compare.
    public struct Pair: Decodable, Sendable, CustomStringConvertible {
        public let a: String
        public let b: String
        /// -1, 0, 1; nil when a side is not a version.
        public let order: Int?
        public var description: String { "\(a) vs \(b)" }
    }

    private struct File: Decodable {
        let pairs: [Pair]
    }

    /// Every row of the table.
    public static let pairs: [Pair] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fixtures/version-comparisons.json")
        // A missing or broken table must fail the tests, not pass them with no rows.
        return try! JSONDecoder().decode(File.self, from: Data(contentsOf: url)).pairs
    }()
}
