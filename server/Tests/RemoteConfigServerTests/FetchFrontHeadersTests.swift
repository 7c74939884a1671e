import Foundation
import RemoteConfigTestSupport
import Testing

/// An answer's headers do not depend on which door it went through: what the fetch front writes by hand
/// carries the `Date` (RFC 9110 requires it of a server with a clock) and `Server` lines that the router's
/// answers carry.
@Suite struct FetchFrontHeadersTests {
    /// The `Date` value of `response`, read as RFC 9110's IMF-fixdate.
    static func date(_ response: RawConnection.Response) -> Date? {
        guard let value = response.headers["date"] else { return nil }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return format.date(from: value)
    }

    @Test func everyClientAnswerCarriesTheDateAndServerLinesOfTheRoutersAnswers() async throws {
        try await ClientCalls.withShop { app, key in
            let connection = try RawConnection(port: app.port)
            let body = #"{"appInstanceId":"i-1","platform":"IOS","appVersion":"1.1.4"}"#
            connection.send(ClientCalls.fetchRequest(key: key, body: body))
            let fetched = try #require(try await connection.response())
            let etag = try #require(fetched.headers["etag"])
            let ofrep = "{\"context\":{\"targetingKey\":\"i-1\"}}"
            connection.send(
                ClientCalls.fetchRequest(key: key, body: body, extra: "If-None-Match: \(etag)\r\n")
                    + ClientCalls.fetchRequest(key: "rc_client_neverSeenBefore", body: body)
                    + "POST /ofrep/v1/evaluate/flags HTTP/1.1\r\nHost: t\r\nX-API-Key: \(key)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(ofrep.utf8.count)\r\n\r\n\(ofrep)"
                    + "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            var answers = [fetched]
            for _ in 0..<4 { answers.append(try #require(try await connection.response())) }
            #expect(answers.map(\.status) == [200, 304, 401, 200, 200])
            let now = Date()
            for answer in answers {
                let date = try #require(Self.date(answer), "no Date line in the \(answer.status) answer")
                #expect(abs(date.timeIntervalSince(now)) < 10)
                #expect(answer.headers["server"] == "remote-config")
            }
            // The same fetch through the router (a chunked body, which the front leaves to it) answers with the
            // same header names: only the door differs.
            let size = String(body.utf8.count, radix: 16)
            connection.send(
                "POST \(ClientCalls.fetchPath) HTTP/1.1\r\nHost: t\r\nX-API-Key: \(key)\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n\(size)\r\n\(body)\r\n0\r\n\r\n")
            let routed = try #require(try await connection.response())
            #expect(routed.status == 200)
            #expect(Set(routed.headers.keys) == Set(fetched.headers.keys))
        }
    }
}
