import Testing
import VersionTableFixture

@testable import RemoteConfigVersions

@Suite("SemanticVersion")
struct SemanticVersionTests {
    @Test("parsing")
    func parsing() {
        #expect(SemanticVersion("2.1") == SemanticVersion("2.1.0"))
        #expect(SemanticVersion("2.1")?.parts == [2, 1, 0, 0, 0])
        #expect(SemanticVersion("01.002") == SemanticVersion("1.2"))
        #expect(SemanticVersion("1.2.3.4.5")?.parts == [1, 2, 3, 4, 5])
        for bad in ["1.2.3.4.5.6", "a", "1.a", "1.2-beta", "1_0", "0x", "1e", "--1", "inf", "NaN"] {
            #expect(SemanticVersion(bad) == nil, "\(bad)")
        }
    }

    @Test("parts are read as JavaScript's Number() reads them, as Firebase's evaluator does")
    func javaScriptParts() {
        let cases: [(String, [Double])] = [
            (" 3 ", [3, 0, 0, 0, 0]), ("", [0, 0, 0, 0, 0]), ("1..2", [1, 0, 2, 0, 0]), ("1.", [1, 0, 0, 0, 0]),
            ("-1", [-1, 0, 0, 0, 0]), ("+1", [1, 0, 0, 0, 0]), ("1e2.0x10", [100, 16, 0, 0, 0]),
            ("\t2\n.1", [2, 1, 0, 0, 0]), ("Infinity", [.infinity, 0, 0, 0, 0]),
        ]
        for (text, parts) in cases {
            #expect(SemanticVersion(text)?.parts == parts, "\(text)")
        }
        #expect(SemanticVersion(" 3 ") == SemanticVersion("3.0.0"))
        #expect(SemanticVersion("-1")! < SemanticVersion("0")!)
    }

    @Test("ordering is numeric per part")
    func ordering() throws {
        let ordered = ["0.9", "1", "1.0.1", "1.2", "1.10", "2.0.0.0.1", "10"].map { SemanticVersion($0)! }
        #expect(ordered == ordered.sorted())
        #expect(try #require(SemanticVersion("1.10")) > #require(SemanticVersion("1.9")))
    }
}

@Suite("The shared version table")
struct SemanticVersionTableTests {
    @Test(arguments: VersionTable.pairs)
    func comparesAsTheTableSays(pair: VersionTable.Pair) {
        guard let order = pair.order else {
            #expect(SemanticVersion(pair.a) == nil || SemanticVersion(pair.b) == nil)
            return
        }
        let a = SemanticVersion(pair.a)!
        let b = SemanticVersion(pair.b)!
        #expect((a < b ? -1 : a == b ? 0 : 1) == order)
    }
}
