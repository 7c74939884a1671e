import Foundation
import Testing

@testable import RemoteConfigCore

/// The repository's shared table of version comparisons (`Tests/Fixtures/version-comparisons.json`, which
/// the SDK's tests read too), through the condition language: `app.version.<`, `.==` and `.>` decide as the
/// table says, so the server's conditions and the SDK's force-update checks agree.
@Suite struct VersionTableTests {
    struct Pair: Decodable, Sendable, CustomStringConvertible {
        let a: String
        let b: String
        let order: Int?
        var description: String { "\(a) vs \(b)" }
    }

    static let pairs: [Pair] = {
        struct File: Decodable { let pairs: [Pair] }
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../Tests/Fixtures/version-comparisons.json")
        return try! JSONDecoder().decode(File.self, from: Data(contentsOf: url)).pairs
    }()

    @Test(arguments: pairs)
    func conditionsCompareAsTheTableSays(pair: Pair) throws {
        let context = FetchContext(appVersion: pair.a)
        func holds(_ op: String) throws -> Bool {
            try CompiledCondition(name: "c", expression: "app.version.\(op)(['\(pair.b)'])").evaluate(context) == .true
        }
        #expect(try holds("<") == (pair.order == -1))
        #expect(try holds("==") == (pair.order == 0))
        #expect(try holds(">") == (pair.order == 1))
    }
}
