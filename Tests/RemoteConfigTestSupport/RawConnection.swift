import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback TCP connection that sends exactly the bytes a test gives it (half a request head, pipelined
/// requests) and reads HTTP/1.1 responses back, for tests of connection handling.
public final class RawConnection: @unchecked Sendable {
    // Used from one test task at a time.
    private let fd: Int32
    private var buffer = Data()
    private var closed = false

    /// One response: status, headers (lowercased names) and body (by `Content-Length`).
    public struct Response: Sendable {
        public let status: Int
        public let headers: [String: String]
        public let body: Data
    }

    /// Connects to `127.0.0.1:port`.
    public init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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

    /// Sends `text` as it is.
    public func send(_ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sent += count
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                usleep(1000)
            } else {
                return
            }
        }
    }

    /// The next whole response, or nil when the connection ends or `timeout` passes first.
    public func response(timeout: Duration = .seconds(5)) async throws -> Response? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let response = takeResponse() { return response }
            guard try await fill() else { return takeResponse() }
        }
        return nil
    }

    /// Whether the server closed the connection within `timeout` (what arrives meanwhile is discarded).
    public func waitForDisconnect(timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard try await fill() else { return true }
            buffer.removeAll(keepingCapacity: true)
        }
        return false
    }

    /// Reads what is available; false at end of stream.
    private func fill() async throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16384)
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

    private func takeResponse() -> Response? {
        guard let end = buffer.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let lines = String(decoding: buffer[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
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
        guard buffer.count - (bodyStart - buffer.startIndex) >= length else { return nil }
        let body = buffer[bodyStart..<(bodyStart + length)]
        let response = Response(status: status, headers: headers, body: Data(body))
        buffer = Data(buffer[(bodyStart + length)...])
        return response
    }
}
