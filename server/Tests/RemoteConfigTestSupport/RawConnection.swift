import Foundation

/// A loopback TCP connection that sends exactly the bytes a test gives it (half a request head, pipelined
/// requests) and reads HTTP/1.1 responses back, for tests of connection handling.
public final class RawConnection: @unchecked Sendable {
    // Used from one test task at a time.
    private let socket: LoopbackSocket

    /// One response: status, headers (lowercased names) and body (by `Content-Length`).
    public struct Response: Sendable {
        public let status: Int
        public let headers: [String: String]
        public let body: Data
    }

    /// Connects to `127.0.0.1:port`; `receiveBuffer` shrinks the socket's receive buffer.
    public init(port: Int, receiveBuffer: Int32? = nil) throws {
        socket = try LoopbackSocket(port: port, receiveBuffer: receiveBuffer)
    }

    /// Whether the server has not closed the connection, seen without reading from it.
    public var isEstablished: Bool { socket.isEstablished }

    /// Closes the connection.
    public func close() {
        socket.close()
    }

    /// Sends `text` as it is.
    public func send(_ text: String) {
        socket.send(text)
    }

    /// The next whole response, or nil when the connection ends or `timeout` passes first.
    public func response(timeout: Duration = .seconds(5)) async throws -> Response? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let response = takeResponse() { return response }
            guard try await socket.fill() else { return takeResponse() }
        }
        return nil
    }

    /// Whether the server closed the connection within `timeout` (what arrives meanwhile is discarded).
    public func waitForDisconnect(timeout: Duration) async throws -> Bool {
        try await socket.waitForDisconnect(timeout: timeout)
    }

    private func takeResponse() -> Response? {
        guard let end = socket.buffer.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let lines = String(decoding: socket.buffer[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let bodyStart = end.upperBound
        guard socket.buffer.count - (bodyStart - socket.buffer.startIndex) >= length else { return nil }
        let body = socket.buffer[bodyStart..<(bodyStart + length)]
        let response = Response(status: status, headers: headers, body: Data(body))
        socket.buffer = Data(socket.buffer[(bodyStart + length)...])
        return response
    }
}
