import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A non-blocking TCP connection to 127.0.0.1, the transport of the raw test clients (`RawConnection`,
/// `SSEClient`): they send exact bytes through it and parse what arrives in `buffer`.
final class LoopbackSocket {
    // Used from one test task at a time, like the clients that own it.
    private let fd: Int32
    private var closed = false
    /// What has arrived and not been parsed yet.
    var buffer = Data()

    /// Connects to `127.0.0.1:port`; `receiveBuffer` shrinks the socket's receive buffer (a reader that
    /// stalls then fills the server's buffers sooner).
    init(port: Int, receiveBuffer: Int32? = nil) throws {
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
        guard result == 0 else {
            Glibc.close(fd)
            throw ServerProcess.Failure("cannot connect to port \(port)")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close() }

    /// Closes the connection.
    func close() {
        if !closed {
            closed = true
            Glibc.close(fd)
        }
    }

    /// Sends `text` as it is, waiting while the socket is full; stops at an error (the server closed).
    func send(_ text: String) {
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

    /// Whether the connection is still open both ways, from the kernel's view (TCP_INFO): it reads nothing,
    /// so a test can tell that the server closed a connection whose data the client never read.
    var isEstablished: Bool {
        var info = tcp_info()
        var length = socklen_t(MemoryLayout<tcp_info>.size)
        guard getsockopt(fd, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0 else { return false }
        return info.tcpi_state == UInt8(TCP_ESTABLISHED)
    }

    /// Reads what is available into `buffer`; false at the end of the stream.
    func fill() async throws -> Bool {
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

    /// Whether the server closed the connection within `timeout` (what arrives meanwhile is discarded).
    func waitForDisconnect(timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard try await fill() else { return true }
            buffer.removeAll(keepingCapacity: true)
        }
        return false
    }
}
