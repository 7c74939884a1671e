import Foundation
import Testing

@testable import RemoteConfigClient

@Suite struct ServerSentEventParserTests {
    static let versionEvent = "event: version\nid: 7\ndata: {\"latestTemplateVersionNumber\": \"7\"}\n\n"

    @Test func parsesAVersionEvent() {
        var parser = ServerSentEventParser()
        let events = parser.feed(Data(Self.versionEvent.utf8))
        #expect(
            events == [
                ServerSentEvent(type: "version", data: #"{"latestTemplateVersionNumber": "7"}"#, lastEventId: "7")
            ])
        #expect(parser.lastEventId == "7")
    }

    @Test func chunksSplitAnywhereGiveTheSameEvents() {
        let stream =
            ": hello\r\n" + Self.versionEvent.replacingOccurrences(of: "\n", with: "\r\n")
            + "event: version\rid: 8\rdata: {\"latestTemplateVersionNumber\": \"8\"}\r\r"
        let bytes = Array(stream.utf8)
        var whole = ServerSentEventParser()
        let expected = whole.feed(Data(bytes))
        #expect(expected.map(\.lastEventId) == ["7", "8"])

        for size in 1...7 {
            var parser = ServerSentEventParser()
            var events: [ServerSentEvent] = []
            for start in stride(from: 0, to: bytes.count, by: size) {
                events += parser.feed(Data(bytes[start..<min(start + size, bytes.count)]))
            }
            #expect(events == expected, "chunk size \(size)")
        }
    }

    @Test func crlfSplitBetweenChunksIsOneLineEnding() {
        var parser = ServerSentEventParser()
        var events = parser.feed(Data("data: a\r".utf8))
        events += parser.feed(Data("\ndata: b\r".utf8))
        events += parser.feed(Data("\n\r\n".utf8))
        #expect(events.map(\.data) == ["a\nb"])
    }

    @Test func commentsAndUnknownFieldsAreIgnored() {
        var parser = ServerSentEventParser()
        let events = parser.feed(Data(": keep-alive\n:\nfoo: bar\n\n: another\ndata: x\n\n".utf8))
        #expect(events == [ServerSentEvent(type: "message", data: "x", lastEventId: "")])
    }

    @Test func retryIsParsedAndInvalidRetryIgnored() {
        var parser = ServerSentEventParser()
        _ = parser.feed(Data("retry: 3000\n\n".utf8))
        #expect(parser.retryMilliseconds == 3000)
        _ = parser.feed(Data("retry: soon\nretry: -5\nretry: 1.5\n\n".utf8))
        #expect(parser.retryMilliseconds == 3000)
        _ = parser.feed(Data("retry:250\n".utf8))
        #expect(parser.retryMilliseconds == 250)
    }

    @Test func fieldRules() {
        var parser = ServerSentEventParser()
        // A leading BOM, a field without colon, no space after the colon, two spaces keep one, multi-line data.
        let text = "\u{FEFF}data\ndata:x\ndata:  y\n\nid\nevent: version\n\n"
        let events = parser.feed(Data(text.utf8))
        #expect(events == [ServerSentEvent(type: "message", data: "\nx\n y", lastEventId: "")])
        #expect(parser.lastEventId == "", "an event with no data is not dispatched, and `id` alone resets the id")
    }

    @Test func idPersistsAcrossEventsAndIncompleteEventsWait() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Data("id: 3\ndata: a\n\ndata: b\n".utf8)).map(\.lastEventId) == ["3"])
        #expect(parser.feed(Data("\n".utf8)) == [ServerSentEvent(type: "message", data: "b", lastEventId: "3")])
    }

    @Test func utf8SplitInsideACharacter() {
        let bytes = Array("data: café ☕\n\n".utf8)
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for byte in bytes { events += parser.feed(Data([byte])) }
        #expect(events.map(\.data) == ["café ☕"])
    }
}
