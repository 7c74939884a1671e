import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal Server-Sent Events client over a raw loopback socket, for realtime tests.
public final class SSEClient: @unchecked Sendable {
    // Used from one test task at a time; `buffer` and `fd` are not shared across tasks.
    private let fd: Int32
    private var buffer = Data()
    private var closed = false

    /// One parsed event.
    public struct Event: Sendable, Equatable {
        public var event: String?
        public var id: String?
        public var data: String?
        public var retry: String?
        public var comment: String?
    }

    /// Connects to `127.0.0.1:port` and sends `GET path` with `headers`; `receiveBuffer` shrinks the
    /// socket's receive buffer (a stalled reader then fills the server's buffers sooner).
    public init(port: Int, path: String, headers: [String: String] = [:], receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw ServerProcess.Failure("cannot connect to port \(port)") }
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close() }

    /// Closes the connection.
    public func close() {
        if !closed {
            closed = true
            Glibc.close(fd)
        }
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
            guard try await fill() else { break }
        }
        throw ServerProcess.Failure("no response head")
    }

    /// The next event (or comment), or nil when none arrives within `timeout` or the stream ended.
    public func next(timeout: Duration = .seconds(5)) async throws -> Event? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let event = takeEvent() { return event }
            guard try await fill() else { return nil }
        }
        return nil
    }

    /// Whether the server ended the stream (closed the connection or sent the last chunk) within `timeout`.
    public func waitForClose(timeout: Duration = .seconds(5)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard try await fill() else { return true }
            let text = String(decoding: buffer, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
            if text.hasPrefix("0\n\n") || text.contains("\n0\n\n") { return true }
            _ = takeEvent()
        }
        return false
    }

    /// Whether the server closed the connection within `timeout` (reading and discarding what arrives); a
    /// stream that merely ended with its last chunk leaves the connection open and does not count.
    public func waitForDisconnect(timeout: Duration = .seconds(5)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard try await fill() else { return true }
            buffer.removeAll(keepingCapacity: true)
        }
        return false
    }

    /// Reads what is available; false at end of stream.
    private func fill() async throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &chunk, chunk.count, 0)
        if count > 0 {
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
        if count == 0 { return false }
        if errno == EAGAIN || errno == EWOULDBLOCK {
            try await Task.sleep(for: .milliseconds(2))
            return true
        }
        return false
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
