import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import RemoteConfigServer
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// `/readyz` follows the database: 503 while it is down, 200 again once it is back, without a restart.
@Suite struct ReadinessTests {
    @Test func readinessFollowsTheDatabase() async throws {
        let cluster = try await PrivateCluster.start()
        defer { cluster.destroy() }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let database = Database(url: cluster.url, logger: logger)
        var configuration = ServerConfiguration()
        configuration.adminToken = TestApp.adminToken
        let app = buildApplication(
            configuration: configuration, database: database, secrets: try await TestSecrets.prepare(cluster.url),
            logger: logger)
        try await app.test(.router) { client in
            func ready() async throws -> (Int, HTTPFields) {
                let response = try await client.execute(uri: "/readyz", method: .get)
                return (Int(response.status.code), response.headers)
            }
            #expect(try await ready().0 == 200)

            try cluster.embedded.stop()
            let (down, headers) = try await ready()
            #expect(down == 503)
            #expect(headers[.retryAfter] != nil)
            let write = try await client.execute(
                uri: "/v1/projects", method: .post, headers: [.authorization: "Bearer \(TestApp.adminToken)"],
                body: .init(string: #"{"projectId": "down-app"}"#))
            #expect(write.status == .serviceUnavailable)
            #expect(write.headers[.retryAfter] != nil)

            // Keep asking for 8 s: the old pool's reconnection backoff grows to seconds meanwhile.
            let outageEnd = ContinuousClock.now + .seconds(8)
            while ContinuousClock.now < outageEnd {
                _ = try await ready()
                try await Task.sleep(for: .milliseconds(100))
            }
            _ = try cluster.embedded.start()
            // Back within 2 seconds of PostgreSQL accepting connections, without a restart.
            let deadline = ContinuousClock.now + .seconds(2)
            var status = 0
            while ContinuousClock.now < deadline {
                status = try await ready().0
                if status == 200 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(status == 200)
        }
    }
}
