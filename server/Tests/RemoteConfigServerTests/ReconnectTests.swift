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

/// After PostgreSQL restarts, every server listens again and catches up.
@Suite struct ReconnectTests {
    static func app(_ cluster: PrivateCluster) async throws -> some ApplicationProtocol {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        var configuration = ServerConfiguration()
        configuration.adminToken = TestApp.adminToken
        configuration.port = 0
        // No periodic safety net within the test: only a renewed LISTEN can bring the publish.
        configuration.cacheCheckInterval = .seconds(600)
        return buildApplication(
            configuration: configuration, database: Database(url: cluster.url, logger: logger, maximumConnections: 4),
            secrets: try await TestSecrets.prepare(cluster.url), logger: logger)
    }

    @Sendable static func template(_ value: String) -> ByteBuffer {
        ByteBuffer(string: #"{"parameters": {"min_supported_version": {"defaultValue": {"value": "\#(value)"}}}}"#)
    }

    @Test func aServerListensAgainAfterTheDatabaseReturns() async throws {
        let cluster = try await PrivateCluster.start()
        defer { cluster.destroy() }
        let admin: HTTPFields = [.authorization: "Bearer \(TestApp.adminToken)"]
        let publish: HTTPFields = [.authorization: "Bearer \(TestApp.adminToken)", .ifMatch: "*"]
        // Server A holds the streams; server B, on the same database, publishes.
        try await Self.app(cluster).test(.live) { serverA in
            try await Self.app(cluster).test(.router) { serverB in
                _ = try await serverB.execute(
                    uri: "/v1/projects", method: .post, headers: admin,
                    body: .init(string: #"{"projectId": "shop-app"}"#))
                let key = try await serverB.execute(
                    uri: "/v1/apiKeys", method: .post, headers: admin,
                    body: .init(string: #"{"role": "client", "project": "shop-app"}"#))
                let secret = try #require(try APIDecoder.decode(APIKey.self, from: key.body.readableBytesView).key)
                _ = try await serverB.execute(
                    uri: "/v1/projects/shop-app/remoteConfig", method: .put, headers: publish,
                    body: Self.template("1.0.0"))
                let path = "/v1/projects/shop-app/remoteConfig:stream"
                let port = try #require(serverA.port)
                let stream = try SSEClient(port: port, path: path, headers: ["X-API-Key": secret])
                _ = try await stream.head()
                _ = try await stream.next()  // retry
                #expect(try await stream.next()?.id == "1")

                try cluster.embedded.stop()
                try await Task.sleep(for: .milliseconds(500))
                _ = try cluster.embedded.start()
                // B's pool reconnects on its own; publish until it is through.
                var published = false
                for _ in 0..<100 where !published {
                    let reply = try await serverB.execute(
                        uri: "/v1/projects/shop-app/remoteConfig", method: .put, headers: publish,
                        body: Self.template("2.0.0"))
                    published = reply.status == .ok
                    if !published { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(published)
                let event = try await stream.next(timeout: .seconds(4))
                #expect(event?.id == "2", "server A did not hear of the publish after the database came back")

                let late = try SSEClient(port: port, path: path, headers: ["X-API-Key": secret, "Last-Event-ID": "1"])
                _ = try await late.head()
                _ = try await late.next()
                #expect(try await late.next(timeout: .seconds(1))?.id == "2", "a client behind gets the event at once")
            }
        }
    }
}
