import Foundation

/// A minimal Server-Sent Events client over a raw loopback socket, for realtime tests.
public final class SSEClient: @unchecked Sendable {
    // Used from one test task at a time.
    private let socket: LoopbackSocket
    private var buffer: Data {
        get { socket.buffer }
        set { socket.buffer = newValue }
    }

    /// One parsed event.
    public struct Event: Sendable, Equatable {
        public var event: String?
        public var id: String?
        public var data: String?
        public var retry: String?
        public var comment: String?
    }

    /// Connects to `127.0.0.1:port` and sends `GET path` with `headers`; `receiveBuffer` shrinks the
    /// socket's receive buffer (a stalled reader then fills the server's buffers sooner). `first` is sent
    /// ahead of the stream request on the same connection (its answer then comes first).
    public init(
        port: Int, path: String, headers: [String: String] = [:], receiveBuffer: Int32? = nil, first: String = ""
    ) throws {
        socket = try LoopbackSocket(port: port, receiveBuffer: receiveBuffer)
        var request = first + "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        socket.send(request)
    }

    /// Closes the connection.
    public func close() {
        socket.close()
    }

    /// The status line and headers (waits for them).
    public func head(timeout: Duration = .seconds(5)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let range = buffer.range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<range.upperBound)
                return head
            }
            guard try await socket.fill() else { break }
        }
        throw ServerProcess.Failure("no response head")
    }

    /// The next event (or comment), or nil when none arrives within `timeout` or the stream ended.
    public func next(timeout: Duration = .seconds(5)) async throws -> Event? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let event = takeEvent() { return event }
            guard try await socket.fill() else { return nil }
        }
        return nil
    }

    /// Whether the server ended the stream (closed the connection or sent the last chunk) within `timeout`.
    public func waitForClose(timeout: Duration = .seconds(5)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard try await socket.fill() else { return true }
            let text = String(decoding: buffer, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
            if text.hasPrefix("0\n\n") || text.contains("\n0\n\n") { return true }
            _ = takeEvent()
        }
        return false
    }

    /// Whether the server closed the connection within `timeout` (reading and discarding what arrives); a
    /// stream that merely ended with its last chunk leaves the connection open and does not count.
    public func waitForDisconnect(timeout: Duration = .seconds(5)) async throws -> Bool {
        try await socket.waitForDisconnect(timeout: timeout)
    }

    /// Everything that arrives (besides what was read already) until the server closes the connection; nil
    /// when it does not within `timeout`.
    public func readUntilClosed(timeout: Duration = .seconds(10)) async throws -> Data? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard try await socket.fill() else {
                defer { buffer = Data() }
                return buffer
            }
        }
        return nil
    }

    /// Parses one event out of the (chunked) body, if a whole one has arrived.
    private func takeEvent() -> Event? {
        // Chunked transfer encoding: drop chunk-size lines (hex digits alone on a line).
        // "\r\n" is one Character in Swift: normalise line ends before splitting.
        let text = String(decoding: buffer, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        guard let end = text.range(of: "\n\n") else { return nil }
        let block = String(text[..<end.lowerBound])
        buffer = Data(text[end.upperBound...].utf8)
        var event = Event()
        for rawLine in block.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = String(rawLine)
            if line.isEmpty || line.allSatisfy(\.isHexDigit) { continue }
            if line.hasPrefix(":") {
                event.comment = String(line.dropFirst()).trimmingCharacters(in: .whitespaces)
                continue
            }
            let parts = line.split(separator: ":", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let value = parts.count > 1 ? parts[1] : ""
            switch parts[0] {
            case "event": event.event = value
            case "id": event.id = value
            case "data": event.data = value
            case "retry": event.retry = value
            default: break
            }
        }
        if event == Event() { return takeEvent() }
        return event
    }
}
