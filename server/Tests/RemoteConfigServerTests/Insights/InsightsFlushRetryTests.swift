import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// A flush that fails is retried without ever adding a count twice, and never without end: a write PostgreSQL
/// finished after the server stopped waiting adds nothing when it is sent again, and a write that fails every
/// time is given up, costing no other project its counts.
@Suite struct InsightsFlushRetryTests {
    static func fetch(
        _ app: TestApp.Session, _ key: String, devices: Range<Int>, project: String = "shop-app",
        prefix: String = "device"
    ) async throws {
        for index in devices {
            let body = InsightsTests.body("\(prefix)-\(index)", "IOS", "1.9.0")
            let path = "/v1/projects/\(project)/remoteConfig:fetch"
            #expect(try await ClientCalls.fetch(app, key: key, body, path: path).status == 200)
        }
    }

    static func answers(_ app: TestApp.Session, _ project: String) async throws -> Int {
        let versions = try await app.call(.get, "/v1/projects/\(project)/insights/versions")
        let report = try JSONDecoder().decode(InsightsVersionsReport.self, from: versions.body)
        return report.platforms.reduce(0) { $0 + $1.answers }
    }

    @Test func aWriteFinishedAfterItsDeadlineIsNotAddedAgain() async throws {
        try await TestApp.run(url: try await TestClusterURL.make(), databaseDeadline: .seconds(3)) { app in
            try await app.createProject("shop-app")
            #expect(try await app.publish("shop-app", InsightsTests.template).status == 200)
            let key = try await app.createKey(role: "client", project: "shop-app").secret
            try await Self.fetch(app, key, devices: 0..<3)
            // The first write of the counts takes 6 s to commit, twice the deadline: the sleep is in a trigger
            // deferred to COMMIT, so the server has stopped waiting once the write is sent whole and PostgreSQL
            // commits it anyway, whatever the client does with its connection meanwhile.
            try await app.database.run { client in
                _ = try await client.query("CREATE TABLE slow_once (at timestamptz NOT NULL)")
                _ = try await client.query(
                    """
                    CREATE FUNCTION slow_once() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        IF NOT EXISTS (SELECT 1 FROM slow_once) THEN
                            INSERT INTO slow_once VALUES (now());
                            PERFORM pg_sleep(6);
                        END IF;
                        RETURN NULL;
                    END $$
                    """)
                _ = try await client.query(
                    """
                    CREATE CONSTRAINT TRIGGER slow_once AFTER INSERT ON insight_versions_hourly
                    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_once()
                    """)
            }
            await #expect(throws: StoreError.self) { try await app.environment.flushInsights() }
            // Until the slow write has committed. Every call of this app has the 3-s deadline (short, so that the
            // slow write outlasts it; long enough that other calls meet it on a loaded machine, where a read or a
            // flush that still times out is tried again, as the flush itself would be).
            func settled(_ body: () async throws -> Int) async throws -> Int {
                let deadline = ContinuousClock.now + .seconds(60)
                while ContinuousClock.now < deadline {
                    if let value = try? await body(), value != 0 { return value }
                    try await Task.sleep(for: .milliseconds(100))
                }
                return try await body()
            }
            func flushed() async throws {
                for _ in 0..<20 {
                    if (try? await app.environment.flushInsights()) != nil { return }
                    try await Task.sleep(for: .milliseconds(200))
                }
                try await app.environment.flushInsights()
            }
            #expect(try await settled { try await Self.answers(app, "shop-app") } == 3)
            // Sent again, as every failed write is: the counts are there once.
            try await flushed()
            #expect(try await settled { try await Self.answers(app, "shop-app") } == 3)
            // And what came after is added as usual.
            try await Self.fetch(app, key, devices: 3..<5)
            try await flushed()
            #expect(try await settled { try await Self.answers(app, "shop-app") } == 5)
        }
    }

    @Test func aWriteThatAlwaysFailsIsGivenUpAndCostsNoOtherProjectItsCounts() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            var keys: [String: String] = [:]
            for project in ["broken-app", "shop-app"] {
                try await app.createProject(project)
                #expect(try await app.publish(project, InsightsTests.template).status == 200)
                keys[project] = try await app.createKey(role: "client", project: project).secret
            }
            // Every write of broken-app's counts fails, as a write refused by the database would each time.
            try await app.database.run { client in
                _ = try await client.query(
                    """
                    CREATE FUNCTION refuse_broken() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN RAISE EXCEPTION 'refused'; END $$
                    """)
                _ = try await client.query(
                    """
                    CREATE TRIGGER refuse_broken BEFORE INSERT ON insight_versions_hourly
                    FOR EACH ROW WHEN (NEW.project_id = 'broken-app') EXECUTE FUNCTION refuse_broken()
                    """)
            }
            try await Self.fetch(app, keys["broken-app"]!, devices: 0..<2, project: "broken-app")
            try await Self.fetch(app, keys["shop-app"]!, devices: 0..<3)
            var failed = 0
            for _ in 0..<10 {
                do {
                    try await app.environment.flushInsights()
                    break
                } catch {
                    failed += 1
                    // broken-app's failure costs shop-app nothing, from the first flush on.
                    #expect(try await Self.answers(app, "shop-app") == 3)
                }
            }
            // Retried a bounded number of times, then given up: the next flush succeeds.
            #expect(failed == 5)
            try await Self.fetch(app, keys["shop-app"]!, devices: 3..<4, prefix: "later")
            try await app.environment.flushInsights()
            #expect(try await Self.answers(app, "shop-app") == 4)
            #expect(try await Self.answers(app, "broken-app") == 0)
        }
    }
}
