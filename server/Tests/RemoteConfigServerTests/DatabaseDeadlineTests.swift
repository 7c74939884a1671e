import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import RemoteConfigServer
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// 503 `UNAVAILABLE` means the database cannot be reached; a call that is only slow answers 504
/// `DEADLINE_EXCEEDED`. Both carry `Retry-After`.
@Suite struct DatabaseDeadlineTests {
    static let logger = Logger(label: "test")

    @Test func aPublishWaitingOnALockedProjectIsADeadlineExceeded() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        // The store's own 5 s deadline: a shorter one would fail the set-up on a loaded machine, and the
        // locked call below waits for ever.
        try await TestApp.run(url: url) { app in
            try await app.createProject("shop-app")
            // Another connection holds the project's row, as a long publish would.
            let holder = try await PostgresConnectionHandle.open(url, logger: Self.logger)
            try await holder.connection.query("BEGIN", logger: Self.logger)
            try await holder.connection.query(
                "SELECT 1 FROM projects WHERE project_id = 'shop-app' FOR UPDATE", logger: Self.logger)
            let reply = try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            try await holder.connection.query("ROLLBACK", logger: Self.logger)
            await holder.close()
            #expect(reply.status == 504, "\(reply.text)")
            #expect(reply.errorStatus == "DEADLINE_EXCEEDED")
            #expect(reply.headers[.retryAfter] != nil)
            #expect(reply.text.contains("the database is up, but this call took longer than its limit"))
        }
    }

    @Test func aStoppedDatabaseIsUnavailable() async throws {
        let cluster = try await PrivateCluster.start()
        defer { cluster.destroy() }
        try await TestApp.run(url: cluster.url) { app in
            try await app.createProject("shop-app")
            try cluster.embedded.stop()
            defer { _ = try? cluster.embedded.start() }
            let reply = try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            #expect(reply.status == 503, "\(reply.text)")
            #expect(reply.errorStatus == "UNAVAILABLE")
            #expect(reply.headers[.retryAfter] != nil)
        }
    }

    /// Frozen processes accept connections and answer nothing: the database is down, not slow.
    @Test func aDatabaseThatHangsIsUnavailable() async throws {
        let cluster = try await PrivateCluster.start()
        defer { cluster.destroy() }
        try await TestApp.run(url: cluster.url) { app in
            try await app.createProject("shop-app")
            try cluster.embedded.signalAllProcesses(SIGSTOP)
            let reply: TestApp.Reply
            do {
                defer { try? cluster.embedded.signalAllProcesses(SIGCONT) }
                reply = try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            }
            #expect(reply.status == 503, "\(reply.text)")
            #expect(reply.errorStatus == "UNAVAILABLE")
            #expect(reply.headers[.retryAfter] != nil)
        }
    }
}
