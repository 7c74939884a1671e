import Foundation
import Testing

/// Bodies are typed (RemoteConfigAPI) or `JSONValue` everywhere: Foundation's untyped JSON objects, which lose
/// key order and exact numbers and hide a misspelt member until run time, never come back in the server or its
/// tests.
@Suite struct WireTypesGuardTests {
    /// Spelt in pieces so that this file does not find itself.
    static let forbidden = ["[String: " + "Any]", "JSON" + "Serialization"]

    @Test func noUntypedJSONObjectsInTheServerOrItsTests() throws {
        let server = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var offenders: [String] = []
        for folder in ["Sources", "Tests"] {
            let root = server.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "swift" else { continue }
                let text = try String(contentsOf: file, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where Self.forbidden.contains(where: { line.contains($0) }) {
                    offenders.append("\(folder)/\(file.path.dropFirst(root.path.count + 1)):\(number + 1)")
                }
            }
        }
        #expect(offenders.isEmpty, "untyped JSON objects at \(offenders.joined(separator: ", "))")
    }
}
