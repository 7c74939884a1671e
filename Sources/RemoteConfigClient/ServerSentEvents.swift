import Foundation

/// One dispatched Server-Sent Event.
struct ServerSentEvent: Sendable, Hashable {
    /// The `event:` field, `message` when absent.
    var type: String
    /// The `data:` lines joined with newlines.
    var data: String
    /// The last event id seen on the stream when this event was dispatched.
    var lastEventId: String
}

/// An incremental parser for `text/event-stream` (the WHATWG HTML rules): feed it chunks as they arrive, split
/// anywhere, even inside a line ending or a UTF-8 sequence.
struct ServerSentEventParser: Sendable {
    /// The reconnection time the server asked for with `retry:`, in milliseconds.
    private(set) var retryMilliseconds: Int?
    /// The last `id:` seen, sent back as `Last-Event-ID` on reconnect.
    private(set) var lastEventId = ""

    private var buffer: [UInt8] = []
    private var lastWasCarriageReturn = false
    private var atStreamStart = true
    private var eventType = ""
    private var data = ""
    private var hasData = false

    /// Feeds a chunk and returns the events it completes.
    mutating func feed(_ chunk: Data) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in chunk {
            if lastWasCarriageReturn {
                lastWasCarriageReturn = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0D:
                lastWasCarriageReturn = true
                if let event = endLine() { events.append(event) }
            case 0x0A:
                if let event = endLine() { events.append(event) }
            default:
                buffer.append(byte)
            }
        }
        return events
    }

    private mutating func endLine() -> ServerSentEvent? {
        var bytes = buffer[...]
        buffer.removeAll(keepingCapacity: true)
        if atStreamStart {
            atStreamStart = false
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        }
        let line = String(decoding: bytes, as: UTF8.self)
        return process(line: line)
    }

    private mutating func process(line: String) -> ServerSentEvent? {
        if line.isEmpty { return dispatch() }
        if line.hasPrefix(":") { return nil }
        let field: Substring
        var value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = line[...]
            value = ""
        }
        switch field {
        case "event":
            eventType = String(value)
        case "data":
            if hasData { data.append("\n") }
            data.append(contentsOf: value)
            hasData = true
        case "id":
            if !value.contains("\u{0}") { lastEventId = String(value) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }), let milliseconds = Int(value) {
                retryMilliseconds = milliseconds
            }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            eventType = ""
            data = ""
            hasData = false
        }
        guard hasData else { return nil }
        return ServerSentEvent(type: eventType.isEmpty ? "message" : eventType, data: data, lastEventId: lastEventId)
    }
}
