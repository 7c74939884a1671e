import Foundation
import NIOCore
import RemoteConfigCore
import Testing

@testable import RemoteConfigServer

/// The fetch body reader that skips the JSON tree must read every body as the strict parser does: the same
/// context, or the same 400 byte for byte.
@Suite struct FetchBodyFieldsTests {
    static let sdkBody =
        #"{"appInstanceId":"0123456789abcdef0123456789abcdef","appId":"com.example.shop","platform":"IOS","#
        + #""appVersion":"2.4.1","appBuild":"210","countryCode":"US","languageCode":"en-US","#
        + #""sdkVersion":"remote-config-swift/1.0"}"#

    static func scan(_ body: String) -> FetchBodyFields? {
        Array(body.utf8).withUnsafeBytes { FetchBodyFields.scan($0) }
    }

    /// The answer to `body`: its context, or its error's status and bytes.
    static func outcome(_ body: String) -> String {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        do {
            return "\(try FetchRequest.context(from: Array(body.utf8), now: now))"
        } catch let error as APIError {
            return "\(error.status.code) " + String(buffer: error.encodedBody())
        } catch {
            return "unexpected \(error)"
        }
    }

    /// The same body with a member only the strict parser reads (a number the fetch ignores).
    static func forcedFull(_ body: String) -> String {
        guard let brace = body.firstIndex(of: "{") else { return body }
        let rest = body[body.index(after: brace)...]
        let separator = rest.drop { " \t\r\n".contains($0) }.first == "}" ? "" : ","
        return String(body[...brace]) + #""ignoredNumber":1"# + separator + rest
    }

    @Test func anSDKBodyIsReadWithoutTheTree() {
        #expect(Self.scan(Self.sdkBody) != nil)
        #expect(Self.scan(" { } ") != nil)
        #expect(Self.scan(#"{"appId":null,"extra":"x"}"#) != nil)
    }

    @Test func whatOnlyTheStrictParserReadsGoesToIt() {
        for body in [
            #"{"appId":"a\"b"}"#, #"{"appId":"é"}"#, #"{"appId":1}"#, #"{"x":"a","x":"b"}"#,
            #"{"appId":"a","appId":"b"}"#, #"{"customSignals":{}}"#, #"{"userProperties":null}"#, #"{"a":"b",}"#,
            #"{"a":"b"} x"#, "[]", "", #"{"a" "b"}"#, #"{"a":"b""#, #"{"a":nul}"#, #"{"appId":"tab\#t"}"#,
        ] {
            #expect(Self.scan(body) == nil, "\(body)")
        }
    }

    @Test func bothReadersAgreeOnContextsAndErrors() {
        let bodies = [
            Self.sdkBody,
            #"{"appInstanceId":"abc"}"#,
            #"{}"#,
            #"{"appInstanceId":""}"#,
            #"{"appInstanceId":null,"appId":"x"}"#,
            #"{"appInstanceId":"abc","platform":"PALM"}"#,
            #"{"appInstanceId":"abc","platform":"android"}"#,
            #"{"appInstanceId":"abc","appVersion":"2.1 beta"}"#,
            #"{"appInstanceId":"abc","appBuild":""}"#,
            #"{"appInstanceId":"abc","osVersion":"17.4.1"}"#,
            #"{"appInstanceId":"abc","countryCode":"USA"}"#,
            #"{"appInstanceId":"abc","countryCode":"419"}"#,
            #"{"appInstanceId":"abc","languageCode":"zh_Hant_TW"}"#,
            #"{"appInstanceId":"abc","languageCode":"toolongtag-x"}"#,
            #"{"appInstanceId":"abc","firstOpenTime":"2026-11-26T10:00:00Z"}"#,
            #"{"appInstanceId":"abc","firstOpenTime":"yesterday"}"#,
            #"{"appInstanceId":"abc","timeZone":"Asia/Tokyo"}"#,
            #"{"appInstanceId":"abc","timeZone":"Mars/Olympus"}"#,
            #"{"appInstanceId":"abc","sdkVersion":""# + String(repeating: "v", count: 129) + #""}"#,
            #"{"appInstanceId":""# + String(repeating: "i", count: 257) + #"","appId":"x"}"#,
            #"{"platform":"IOS","appInstanceId":"abc","unknown":"kept out"}"#,
            " \n{ \"appInstanceId\" : \"abc\" ,\t\"appId\" : \"x\" } \r\n",
        ]
        for body in bodies {
            #expect(Self.scan(body) != nil, "\(body)")
            #expect(Self.scan(Self.forcedFull(body)) == nil)
            #expect(Self.outcome(body) == Self.outcome(Self.forcedFull(body)), "\(body)")
        }
    }
}
