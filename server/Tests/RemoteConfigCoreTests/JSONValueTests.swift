import Testing

@testable import RemoteConfigCore

@Suite("JSONValue")
struct JSONValueTests {
    @Test("object member order survives parse and encode")
    func orderIsKept() throws {
        let text = #"{"zeta":1,"alpha":{"b":true,"a":null},"mid":[1.50,-0,2e10,"x"]}"#
        let value = try JSONValue(parsing: text)
        #expect(value.objectValue?.keys == ["zeta", "alpha", "mid"])
        #expect(value["alpha"]?.objectValue?.keys == ["b", "a"])
        #expect(value.jsonString == text)
    }

    @Test("a repeated key is refused in small and in large objects", arguments: [2, 15, 16, 17, 40])
    func duplicateKeys(members: Int) throws {
        let keys = (0..<members).map { "\"k\($0)\":\($0)" }
        #expect(try JSONValue(parsing: "{" + keys.joined(separator: ",") + "}").objectValue?.count == members)
        for repeated in [0, members - 1] {
            let text = "{" + (keys + ["\"k\(repeated)\":0"]).joined(separator: ",") + "}"
            #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
            do {
                _ = try JSONValue(parsing: text)
            } catch {
                #expect(error.message == "duplicate key \"k\(repeated)\"")
            }
        }
    }

    @Test("strings: escapes, unicode and surrogate pairs decode and re-encode")
    func strings() throws {
        let value = try JSONValue(parsing: #""a\"b\\c\/d\n\t\u00e9\ud83d\ude0a😊\u0001""#)
        #expect(value.stringValue == "a\"b\\c/d\n\té😊😊\u{01}")
        #expect(value.jsonString == #""a\"b\\c/d\n\té😊😊\u0001""#)
        #expect(try JSONValue(parsing: value.jsonBytes()) == value)
    }

    @Test(
        "malformed JSON is rejected with the byte offset",
        arguments: [
            (#"{"a":1,}"#, 7),
            (#"{"a" 1}"#, 5),
            ("[1,2", 4),
            (#"{"a":tru}"#, 5),
            ("01", 1),
            (#""abc"#, 0),
            (#"{"a":1,"a":2}"#, 7),
            (#""\ud800""#, 1),
            (#""\q""#, 1),
            ("1 2", 2),
            ("", 0),
            ("\"a\tb\"", 2),
        ]
    )
    func malformed(text: String, offset: Int) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
        do {
            _ = try JSONValue(parsing: text)
        } catch {
            #expect(error.offset == offset, "\(text): \(error)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test("invalid UTF-8 is rejected at the offending byte")
    func invalidUTF8() {
        let cases: [[UInt8]] = [
            [0x22, 0x61, 0xFF, 0x22],  // 0xFF never appears in UTF-8
            [0x22, 0x61, 0xC0, 0x80, 0x22],  // overlong NUL
            [0x22, 0x61, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate
            [0x22, 0x61, 0xE2, 0x82, 0x22],  // truncated sequence
            [0x22, 0x61, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
        ]
        for bytes in cases {
            do {
                _ = try JSONValue(parsing: bytes)
                Issue.record("accepted \(bytes)")
            } catch {
                #expect(error.offset == 2)
                #expect(error.message == "invalid UTF-8")
            }
        }
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: [0xC3, 0xA9]) }
    }

    @Test("nesting is capped instead of overflowing the stack")
    func depthCap() throws {
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONValue(parsing: ok) }
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
        let deepObjects = String(repeating: #"{"a":"#, count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deepObjects) }
    }

    @Test("numbers keep their text")
    func numbers() throws {
        for text in ["0", "-0", "1.0", "1E+2", "12345678901234567890123", "-3.25e-7"] {
            let value = try JSONValue(parsing: text)
            #expect(value == .number(text))
            #expect(value.jsonString == text)
        }
        for bad in ["+1", ".5", "1.", "1e", "-", "0x10", "NaN", "Infinity"] {
            #expect(throws: JSONParseError.self, "\(bad)") { try JSONValue(parsing: bad) }
        }
    }

    @Test("pretty printing keeps order and re-parses to the same value")
    func pretty() throws {
        let value = try JSONValue(parsing: #"{"b":[1,{"c":"d"}],"a":{}}"#)
        let pretty = String(decoding: value.prettyJSONBytes(), as: UTF8.self)
        #expect(pretty.contains("\n  \"b\": [\n"))
        #expect(try JSONValue(parsing: pretty) == value)
    }

    @Test("object editing keeps positions")
    func objectEditing() {
        var object: JSONObject = ["a": .integer(1), "b": .integer(2), "c": .integer(3)]
        object["b"] = .string("x")
        object["a"] = nil
        object["d"] = .null
        #expect(object.keys == ["b", "c", "d"])
        #expect(object["b"] == .string("x"))
    }
}
