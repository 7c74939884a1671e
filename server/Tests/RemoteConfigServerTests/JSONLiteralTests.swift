import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// The JSON literals and reads the tests build bodies and check answers with.
@Suite struct JSONLiteralTests {
    @Test func aLiteralIsTheJSONItSpells() {
        let value: JSONValue = ["b": 1, "a": [true, nil, 0.5, "x", ["c": -2]]]
        #expect(value.jsonString == #"{"b":1,"a":[true,null,0.5,"x",{"c":-2}]}"#)
        #expect(value.keys == ["b", "a"])
        #expect(value["a"]?[4]?["c"]?.intValue == -2)
        #expect(value["a"]?[2]?.doubleValue == 0.5)
        #expect(value["a"]?[5] == nil)
    }

    @Test func anAbsentMemberIsNilAndANullMemberIsNull() {
        let value: JSONValue = ["present": nil]
        #expect(value["present"] == .null)
        #expect(value["present"] != nil)
        #expect(value["absent"] == nil)
        #expect(value["present"]?.isNull == true)
    }

    @Test func aWholeNumberReadsAsAnIntInEitherSpelling() {
        #expect(JSONValue.number("3.0").intValue == 3)
        #expect(JSONValue.number("3.5").intValue == nil)
        #expect(JSONValue.string("3").intValue == nil)
    }
}
