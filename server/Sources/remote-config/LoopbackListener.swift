import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One HTTP request received on 127.0.0.1, the redirect of a loopback sign-in (RFC 8252): the listener takes
/// the first `GET`, answers it with a short page, and closes. Bounded: 16 KiB of request head, and a deadline.
struct LoopbackListener {
    private let descriptor: Int32
    /// The port the system chose.
    let port: Int

    /// Listens on a free port of 127.0.0.1.
    init() throws {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw CommandFailure(.usage, "cannot open a loopback socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, length) }
        }
        guard bound == 0, listen(socketDescriptor, 4) == 0 else {
            close(socketDescriptor)
            throw CommandFailure(.usage, "cannot listen on 127.0.0.1")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketDescriptor, $0, &length) }
        }
        descriptor = socketDescriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// The query parameters of the first `GET` within `timeout` seconds; nil when none came.
    func receive(timeout: Int) -> [String: String]? {
        defer { close(descriptor) }
        let deadline = Date().addingTimeInterval(TimeInterval(timeout))
        while Date() < deadline {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let remaining = Int32(max(1, min(1000, deadline.timeIntervalSinceNow * 1000)))
            guard poll(&ready, 1, remaining) > 0 else { continue }
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { continue }
            defer { close(connection) }
            var head: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while head.count < 16 * 1024 {
                var pending = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
                guard poll(&pending, 1, 5000) > 0 else { break }
                let count = read(connection, &buffer, buffer.count)
                guard count > 0 else { break }
                head += buffer[0..<count]
                if String(decoding: head, as: UTF8.self).contains("\r\n\r\n") { break }
            }
            let text = String(decoding: head, as: UTF8.self)
            guard let line = text.split(separator: "\r\n").first, line.hasPrefix("GET "),
                let target = line.split(separator: " ").dropFirst().first,
                let components = URLComponents(string: "http://127.0.0.1" + target)
            else {
                Self.answer(connection, status: "400 Bad Request", "This is remote-config's sign-in listener.")
                continue
            }
            var query: [String: String] = [:]
            for item in components.queryItems ?? [] where query[item.name] == nil {
                query[item.name] = item.value ?? ""
            }
            // A browser's second request (a favicon) has no state; only the redirect counts.
            guard query["state"] != nil else {
                Self.answer(connection, status: "404 Not Found", "")
                continue
            }
            let words =
                query["error"] == nil
                ? "Signed in to remote-config. You may close this tab and go back to the terminal."
                : "The sign-in did not finish. Go back to the terminal."
            Self.answer(connection, status: "200 OK", words)
            return query
        }
        return nil
    }

    private static func answer(_ connection: Int32, status: String, _ words: String) {
        let body = "<!doctype html><meta charset=utf-8><title>remote-config</title><p>\(words)</p>"
        let reply =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\nCache-Control: no-store\r\n\r\n" + body
        _ = Array(reply.utf8).withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
    }
}
