import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import RemoteConfigAPI
import RemoteConfigServer
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// While PostgreSQL is down, fetch and OFREP keep answering from memory.
@Suite struct OutageTests {
    @Test func clientCallsAnswerFromMemoryWhileTheDatabaseIsDown() async throws {
        let cluster = try await PrivateCluster.start()
        defer { cluster.destroy() }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        var configuration = ServerConfiguration()
        configuration.adminToken = TestApp.adminToken
        let app = buildApplication(
            configuration: configuration, database: Database(url: cluster.url, logger: logger),
            secrets: try await TestSecrets.prepare(cluster.url), logger: logger)
        try await app.test(.router) { client in
            let admin: HTTPFields = [.authorization: "Bearer \(TestApp.adminToken)"]
            _ = try await client.execute(
                uri: "/v1/projects", method: .post, headers: admin, body: .init(string: #"{"projectId": "shop-app"}"#))
            let key = try await client.execute(
                uri: "/v1/apiKeys", method: .post, headers: admin,
                body: .init(string: #"{"role": "client", "project": "shop-app"}"#))
            let secret = try #require(try APIDecoder.decode(APIKey.self, from: key.body.readableBytesView).key)
            var publishHeaders = admin
            publishHeaders[.ifMatch] = "*"
            let published = try await client.execute(
                uri: "/v1/projects/shop-app/remoteConfig", method: .put, headers: publishHeaders,
                body: .init(string: #"{"parameters": {"min_supported_version": {"defaultValue": {"value": "2.0.0"}}}}"#)
            )
            #expect(published.status == .ok)

            func fetch() async throws -> (HTTPResponse.Status, String) {
                let response = try await client.execute(
                    uri: "/v1/projects/shop-app/remoteConfig:fetch", method: .post,
                    headers: [.init("X-API-Key")!: secret],
                    body: .init(string: #"{"appInstanceId": "i", "platform": "IOS", "appVersion": "1.0.0"}"#))
                return (response.status, String(buffer: response.body))
            }
            func evaluate(_ path: String) async throws -> (HTTPResponse.Status, String) {
                let response = try await client.execute(
                    uri: path, method: .post, headers: [.authorization: "Bearer \(secret)"],
                    body: .init(string: #"{"context": {"targetingKey": "i", "platform": "IOS"}}"#))
                return (response.status, String(buffer: response.body))
            }
            #expect(try await fetch().0 == .ok)
            try cluster.embedded.stop()
            var answered = 0
            for _ in 0..<20 {
                let (status, body) = try await fetch()
                if status == .ok, body.contains("2.0.0") { answered += 1 }
            }
            #expect(answered == 20, "fetch must keep answering from memory while PostgreSQL is down")
            // OFREP is evaluated by the same in-memory path: both endpoints answer, with the value.
            for path in ["/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags/min_supported_version"] {
                let (status, body) = try await evaluate(path)
                #expect(status == .ok, "\(path) must answer from memory while PostgreSQL is down")
                #expect(body.contains(#""value":"2.0.0""#), "\(path): \(body)")
            }
            let write = try await client.execute(
                uri: "/v1/projects/shop-app/remoteConfig", method: .put, headers: publishHeaders,
                body: .init(string: "{}"))
            #expect(write.status == .serviceUnavailable)
            _ = try cluster.embedded.start()
        }
    }
}
