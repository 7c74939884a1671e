import Foundation

@testable import RemoteConfigClient

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP server on 127.0.0.1 that accepts every connection and never reads or writes a byte: the server an app
/// must not wait a minute for.
final class SilentServer: Sendable {
    struct SocketError: Error, CustomStringConvertible {
        var call: String
        var description: String { "\(call) failed: errno \(errno)" }
    }

    /// The port it listens on, chosen by the system.
    let port: UInt16
    private let listener: Int32
    private let state = Locked<(stopping: Bool, accepted: [Int32])>((false, []))
    private let loopEnded = DispatchSemaphore(value: 0)

    init() throws {
        #if canImport(Glibc)
            let streamType = Int32(SOCK_STREAM.rawValue)
        #else
            let streamType = SOCK_STREAM
        #endif
        let listener = socket(AF_INET, streamType, 0)
        guard listener >= 0 else { throw SocketError(call: "socket") }
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw SocketError(call: "bind/listen")
        }
        self.listener = listener
        self.port = UInt16(bigEndian: address.sin_port)
        DispatchQueue.global().async { [self] in acceptLoop() }
    }

    /// How many connections were accepted so far.
    var acceptedConnections: Int { state.withLock { $0.accepted.count } }

    /// Stops accepting and closes every connection.
    func stop() {
        let wasStopping = state.withLock { state in
            defer { state.stopping = true }
            return state.stopping
        }
        guard !wasStopping else { return }
        loopEnded.wait()
        close(listener)
        for connection in state.withLock({ $0.accepted }) { close(connection) }
    }

    /// Accepts until `stop()`, polling so it notices the stop within 50 ms.
    private func acceptLoop() {
        defer { loopEnded.signal() }
        while !state.withLock({ $0.stopping }) {
            var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            if connection >= 0 { state.withLock { $0.accepted.append(connection) } }
        }
    }
}
