import Foundation
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The fetch front on a real socket: what it leaves to NIO's parser is answered the same way and in order,
/// `Connection: close` is honoured, and an ambiguous request never reaches it as two.
@Suite struct FetchFrontTests {
    static let path = ClientCalls.fetchPath
    static let body = #"{"appInstanceId":"i-1","platform":"IOS","appVersion":"1.1.4"}"#

    static func chunked(key: String) -> String {
        let size = String(body.utf8.count, radix: 16)
        return "POST \(path) HTTP/1.1\r\nHost: t\r\nX-API-Key: \(key)\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "\(size)\r\n\(body)\r\n0\r\n\r\n"
    }

    @Test func aFetchTheFrontLeavesToTheRouterGetsTheSameAnswerInOrder() async throws {
        try await ClientCalls.withShop { app, key in
            let connection = try RawConnection(port: app.port)
            let plain = ClientCalls.fetchRequest(key: key, body: Self.body)
            connection.send(plain + Self.chunked(key: key) + plain)
            var replies: [RawConnection.Response] = []
            for _ in 0..<3 { replies.append(try #require(try await connection.response())) }
            #expect(replies.map(\.status) == [200, 200, 200])
            #expect(replies[0].body == replies[1].body && replies[1].body == replies[2].body)
            #expect(replies[0].headers["etag"] != nil && replies[0].headers["etag"] == replies[1].headers["etag"])
            let answer = try JSONValue(parsing: [UInt8](replies[0].body))
            #expect(answer["entries"]?["require_force_update"] == "true")
        }
    }

    @Test func aRequestBehindAFetchThatWaitedIsAnswered() async throws {
        try await ClientCalls.withShop { app, _ in
            // A key this server has never seen is looked up in the database: that fetch is answered from a
            // task, and the request behind it goes to the router afterwards.
            let connection = try RawConnection(port: app.port)
            connection.send(
                ClientCalls.fetchRequest(key: "rc_client_neverSeenBefore")
                    + "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await connection.response()?.status == 401)
            #expect(try await connection.response()?.status == 200)
        }
    }

    @Test func aKeyRevokedWhileItsConnectionStaysOpenIsRefusedOnThatConnection() async throws {
        try await ClientCalls.withShop { app, _ in
            // The connection remembers its last key; a revocation must void that at once.
            let key = try await app.createKey(role: "client", project: "shop-app")
            let connection = try RawConnection(port: app.port)
            for _ in 0..<2 {
                connection.send(ClientCalls.fetchRequest(key: key.secret))
                #expect(try await connection.response()?.status == 200)
            }
            #expect(try await app.call(.delete, "/v1/apiKeys/\(key.id)").status == 200)
            connection.send(ClientCalls.fetchRequest(key: key.secret))
            #expect(try await connection.response()?.status == 401)
        }
    }

    @Test func connectionCloseIsHonouredAndNothingAfterItIsAnswered() async throws {
        try await ClientCalls.withShop { app, key in
            let connection = try RawConnection(port: app.port)
            connection.send(
                ClientCalls.fetchRequest(key: key, extra: "Connection: close\r\n")
                    + ClientCalls.fetchRequest(key: key))
            let reply = try #require(try await connection.response())
            #expect(reply.status == 200)
            #expect(reply.headers["connection"] == "close")
            #expect(try await connection.response(timeout: .seconds(2)) == nil)
            #expect(try await connection.waitForDisconnect(timeout: .seconds(2)))
        }
    }

    @Test func aRequestWithBothLengthsIsRefusedAndWhatItHidesIsNeverAnswered() async throws {
        try await ClientCalls.withShop { app, key in
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
