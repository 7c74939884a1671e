import Foundation
import RemoteConfigAPI
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

    /// A body as a reply: what `decode(_:)` and the error reads see.
    struct Body: JSONReply {
        let body: Data
        init(_ text: String) { body = Data(text.utf8) }
    }

    @Test func aBodyThatIsNotTheTypeFailsQuotingItself() throws {
        let body = Body(#"{"projectId":"shop-app","displayName":7}"#)
        let failure = try #require(throws: ReplyDecodingFailure.self) { try body.decode(Project.self) }
        #expect(failure.description.contains("displayName must be a string"), "\(failure)")
        #expect(failure.description.contains(#""displayName":7"#), "\(failure)")
    }

    @Test func errorReadsComeFromTheErrorBody() {
        let body = Body(
            #"{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"m","details":[{"field":"a","reason":"R"}]}}"#)
        #expect(body.errorStatus == "INVALID_ARGUMENT")
        #expect(body.errorFields == ["a"])
        #expect(body.errorReasons == ["R"])
        #expect(Body("{}").errorStatus == nil)
        #expect(Body("not json").value == .null)
    }
}
