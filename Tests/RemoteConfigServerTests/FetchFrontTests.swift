import Foundation
import RemoteConfigTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The fetch front on a real socket: what it leaves to NIO's parser is answered the same way and in order,
/// `Connection: close` is honoured, and an ambiguous request never reaches it as two.
@Suite struct FetchFrontTests {
    static let path = FetchHotPathTests.path
    static let body = #"{"appInstanceId":"i-1","platform":"IOS","appVersion":"1.1.4"}"#

    static func chunked(key: String) -> String {
        let size = String(body.utf8.count, radix: 16)
        return "POST \(path) HTTP/1.1\r\nHost: t\r\nX-API-Key: \(key)\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "\(size)\r\n\(body)\r\n0\r\n\r\n"
    }

    @Test func aFetchTheFrontLeavesToTheRouterGetsTheSameAnswerInOrder() async throws {
        try await FetchHotPathTests.withShop { app, key in
            let connection = try RawConnection(port: app.port)
            let plain = FetchHotPathTests.fetchRequest(key: key, body: Self.body)
            connection.send(plain + Self.chunked(key: key) + plain)
            var replies: [RawConnection.Response] = []
            for _ in 0..<3 { replies.append(try #require(try await connection.response())) }
            #expect(replies.map(\.status) == [200, 200, 200])
            #expect(replies[0].body == replies[1].body && replies[1].body == replies[2].body)
            #expect(replies[0].headers["etag"] != nil && replies[0].headers["etag"] == replies[1].headers["etag"])
            let entries = try JSONSerialization.jsonObject(with: replies[0].body) as? [String: Any]
            #expect((entries?["entries"] as? [String: String])?["require_force_update"] == "true")
        }
    }

    @Test func aRequestBehindAFetchThatWaitedIsAnswered() async throws {
        try await FetchHotPathTests.withShop { app, _ in
            // A key this server has never seen is looked up in the database: that fetch is answered from a
            // task, and the request behind it goes to the router afterwards.
            let connection = try RawConnection(port: app.port)
            connection.send(
                FetchHotPathTests.fetchRequest(key: "rc_client_neverSeenBefore")
                    + "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await connection.response()?.status == 401)
            #expect(try await connection.response()?.status == 200)
        }
    }

    @Test func aKeyRevokedWhileItsConnectionStaysOpenIsRefusedOnThatConnection() async throws {
        try await FetchHotPathTests.withShop { app, _ in
            // The connection remembers its last key; a revocation must void that at once.
            let key = try await app.createKey(role: "client", project: "shop-app")
            let connection = try RawConnection(port: app.port)
            for _ in 0..<2 {
                connection.send(FetchHotPathTests.fetchRequest(key: key.secret))
                #expect(try await connection.response()?.status == 200)
            }
            #expect(try await app.call(.delete, "/v1/apiKeys/\(key.id)").status == 200)
            connection.send(FetchHotPathTests.fetchRequest(key: key.secret))
            #expect(try await connection.response()?.status == 401)
        }
    }

    @Test func connectionCloseIsHonouredAndNothingAfterItIsAnswered() async throws {
        try await FetchHotPathTests.withShop { app, key in
            let connection = try RawConnection(port: app.port)
            connection.send(
                FetchHotPathTests.fetchRequest(key: key, extra: "Connection: close\r\n")
                    + FetchHotPathTests.fetchRequest(key: key))
            let reply = try #require(try await connection.response())
            #expect(reply.status == 200)
            #expect(reply.headers["connection"] == "close")
            #expect(try await connection.response(timeout: .seconds(2)) == nil)
            #expect(try await connection.waitForDisconnect(timeout: .seconds(2)))
        }
    }

    @Test func aClientThatSendsFetchesAndNeverReadsIsNotReadWithoutEnd() async throws {
        try await FetchHotPathTests.withShop { app, key in
            // ~1 KiB fetches, 32 MiB of them, from a client with a small receive buffer that reads nothing.
            let padding = "X-Pad: " + String(repeating: "p", count: 900) + "\r\n"
            let request = Array(FetchHotPathTests.fetchRequest(key: key, extra: padding).utf8)
            let total = 32 << 20
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var small: Int32 = 4096
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(app.port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            try #require(connected == 0)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var sent = 0
            var lastProgress = ContinuousClock.now
            let deadline = ContinuousClock.now + .seconds(60)
            while sent < total, ContinuousClock.now < deadline, ContinuousClock.now - lastProgress < .seconds(2) {
                let count = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count > 0 {
                    sent += count
                    lastProgress = .now
                } else {
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
            // The server stopped reading once its answers backed up: the kernel's buffers took the rest.
            #expect(sent < total / 2, "the server read \(sent >> 20) MiB of fetches whose answers nobody read")
            // And it still serves everyone else.
            let other = try RawConnection(port: app.port)
            other.send(FetchHotPathTests.fetchRequest(key: key))
            #expect(try await other.response()?.status == 200)
        }
    }

    @Test func aRequestWithBothLengthsIsRefusedAndWhatItHidesIsNeverAnswered() async throws {
        try await FetchHotPathTests.withShop { app, key in
            let hidden = "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
            let connection = try RawConnection(port: app.port)
            connection.send(
                "POST \(Self.path) HTTP/1.1\r\nHost: t\r\nX-API-Key: \(key)\r\nContent-Length: \(hidden.utf8.count + 5)"
                    + "\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n\(hidden)")
            let first = try await connection.response(timeout: .seconds(2))
            #expect(first == nil || first?.status == 400, "answered \(String(describing: first?.status))")
            #expect(try await connection.response(timeout: .seconds(1)) == nil, "a hidden request was answered")
        }
    }
}
