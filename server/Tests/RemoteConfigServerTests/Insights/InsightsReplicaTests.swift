import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// Two servers on one database: the same devices fetching from both count once each, and every answer
/// exactly once, however their flushes interleave.
@Suite struct InsightsReplicaTests {
    @Test func twoServersCountEachDeviceOnceAndEachAnswerOnce() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        try await TestApp.run(url: url) { first in
            try await first.createProject("shop-app")
            let published = try await first.publish("shop-app", InsightsTests.template)
            try SetupFailure.unless(published.status == 200, published.text)
            let key = try await first.createKey(role: "client", project: "shop-app")
            try await TestApp.run(url: url) { second in
                // The second server learns the key and the template from the database.
                for round in 0..<3 {
                    for device in 0..<200 {
                        let app = (device + round) % 2 == 0 ? first : second
                        let reply = try await ClientCalls.fetch(
                            app, key: key.secret, InsightsTests.body("device-\(device)", "ANDROID", "3.\(device % 4)"))
                        #expect(reply.status == 200)
                    }
                    // Flushes from both at once, several times over: none may lose or repeat a count.
                    async let one: Void = first.environment.flushInsights()
                    async let two: Void = second.environment.flushInsights()
                    _ = try await (one, two)
                }
                let report = try JSONDecoder().decode(
                    InsightsVersionsReport.self,
                    from: try await second.call(.get, "/v1/projects/shop-app/insights/versions").body)
                let android = try #require(report.platforms.first)
                #expect(android.answers == 600)
                // Exactly the estimate of one sketch that saw every device once: the servers' sketches merged.
                var alone = HyperLogLog()
                for device in 0..<200 { alone.add(hash: InstanceHash.of("device-\(device)")) }
                #expect(android.activeInstances == alone.count)
                #expect(abs(android.activeInstances - 200) <= 10, "\(android.activeInstances)")
                #expect(android.versions.map(\.version) == ["3.3", "3.2", "3.1", "3.0"])
                #expect(android.versions.map(\.answers) == [150, 150, 150, 150])
                let sources = try JSONDecoder().decode(
                    InsightsParametersReport.self,
                    from: try await first.call(.get, "/v1/projects/shop-app/insights/parameters").body)
                #expect(sources.answers == 600)
                #expect(sources.parameters["require_force_update"]?.sources.map(\.answers) == [600])
                let sampled = try await first.database.run { client in
                    var count = 0
                    for try await value in try await client.query(
                        "SELECT count(*)::int FROM insight_samples WHERE project_id = 'shop-app'"
                    ).decode(Int.self) { count = value }
                    return count
                }
                #expect(sampled == 200)
            }
        }
    }

    @Test func tensOfThousandsOfRandomVersionsStayBounded() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            _ = try await app.publish("shop-app", InsightsTests.template)
            let key = try await app.createKey(role: "client", project: "shop-app")
            var generator = SystemRandomNumberGenerator()
            // Through the API: a few hundred random versions and instance ids.
            for _ in 0..<300 {
                let version = "\(generator.next() % 100).\(generator.next() % 100).\(generator.next() % 100)"
                let reply = try await ClientCalls.fetch(
                    app, key: key.secret, InsightsTests.body(UUID().uuidString, "IOS", version))
                #expect(reply.status == 200)
            }
            try await app.environment.flushInsights()
            // And tens of thousands more straight into the store, as several servers' flushes.
            let store = InsightsStore(database: app.database)
            let hour = Int(Date().timeIntervalSince1970 / 3600)
            for _ in 0..<4 {
                var counts = InsightCounts()
                for _ in 0..<10_000 {
                    let version = "\(generator.next() % 1000).\(generator.next() % 1000)"
                    counts.record(platform: .ios, version: version, hash: generator.next(), tally: .empty)
                }
                #expect(counts.versions.count <= 201)
                var batch = InsightsBatch()
                batch.counts[.init(project: "shop-app", hour: hour)] = counts
                try await store.add(batch, sampleSize: 100)
            }
            let rows = try await app.database.run { client in
                var count = 0
                for try await value in try await client.query(
                    "SELECT count(*)::int FROM insight_versions_hourly WHERE project_id = 'shop-app'"
                ).decode(Int.self) { count = value }
                return count
            }
            #expect(rows == 201, "200 versions and (other)")
            let report = try JSONDecoder().decode(
                InsightsVersionsReport.self,
                from: try await app.call(.get, "/v1/projects/shop-app/insights/versions").body)
            let ios = try #require(report.platforms.first)
            #expect(ios.answers == 40_300)
            #expect(ios.versions.count == 201)
            #expect(ios.versions.last?.version == "(other)")
            #expect(abs(Double(ios.activeInstances) - 40_300) / 40_300 < 0.05, "\(ios.activeInstances)")
        }
    }

    @Test func oldHoursRollUpIntoDaysAndExpireAfterTheRetention() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let store = InsightsStore(database: app.database)
            let now = Date()
            let twentyDaysAgo = Int(now.timeIntervalSince1970 / 3600) - 20 * 24
            let tally = AnswerTally(
                sources: [.init(parameter: "p", source: .defaultValue, condition: nil)], matchedConditions: ["c"])
            var batch = InsightsBatch()
            for (offset, hour) in [twentyDaysAgo, twentyDaysAgo + 1, twentyDaysAgo - 100 * 24].enumerated() {
                var counts = InsightCounts()
                for device in 0..<50 {
                    counts.record(
                        platform: .web, version: "1.0", hash: InstanceHash.of("d\(device + offset * 10)"), tally: tally)
                }
                batch.counts[.init(project: "shop-app", hour: hour)] = counts
            }
            try await store.add(batch, sampleSize: 10)
            #expect(try await store.maintain(retentionDays: 90, now: now))
            let counts = try await app.database.run { client in
                var result: [String: Int] = [:]
                for try await (table, count) in try await client.query(
                    """
                    SELECT 'vh', count(*)::int FROM insight_versions_hourly UNION ALL
                    SELECT 'vd', count(*)::int FROM insight_versions_daily UNION ALL
                    SELECT 'ph', count(*)::int FROM insight_parameters_hourly UNION ALL
                    SELECT 'pd', count(*)::int FROM insight_parameters_daily UNION ALL
                    SELECT 'cd', count(*)::int FROM insight_conditions_daily
                    """
                ).decode((String, Int).self) { result[table] = count }
                return result
            }
            // The two hours 20 days ago are one day now (the one 120 days ago is gone).
            #expect(counts["vh"] == 0 && counts["ph"] == 0)
            #expect(counts["vd"]! >= 1 && counts["vd"]! <= 2, "\(counts)")
            let since = Date(timeIntervalSince1970: Double(twentyDaysAgo - 48) * 3600)
            let versions = try await store.versions(project: "shop-app", since: since, until: now, platform: nil)
            #expect(versions.first?.answers == 100)
            var alone = HyperLogLog()
            for device in 0..<60 { alone.add(hash: InstanceHash.of("d\(device)")) }
            #expect(versions.first?.activeInstances == alone.count)
            let sources = try await store.parameters(project: "shop-app", since: since, until: now)
            #expect(sources.answers == 100)
            #expect(sources.conditions["c"] == 100)
        }
    }

    @Test func aWindowOfDaysCountsEveryHourInItOnce() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let store = InsightsStore(database: app.database)
            let now = Date()
            let thisHour = Int(now.timeIntervalSince1970 / 3600)
            // One answer an hour for the last 5 days, each from its own instance.
            // Added a day at a time, as flushes would: one call writing 120 hours can outlast the database
            // deadline on a loaded machine.
            for day in 0..<5 {
                var batch = InsightsBatch()
                for hour in (thisHour - (day + 1) * 24 + 1)...(thisHour - day * 24) {
                    var counts = InsightCounts()
                    counts.record(platform: .ios, version: "1.0", hash: InstanceHash.of("i\(hour)"), tally: .empty)
                    batch.counts[.init(project: "shop-app", hour: hour)] = counts
                }
                try await store.add(batch, sampleSize: 10)
            }
            for hoursBack in [1, 5, 30, 49, 77, 100] {
                // From the middle of an hour: that hour overlaps the window and counts.
                let since = Date(timeIntervalSince1970: (Double(thisHour - hoursBack) + 0.5) * 3600)
                let versions = try await store.versions(project: "shop-app", since: since, until: now, platform: nil)
                #expect(versions.first?.answers == hoursBack + 1, "\(hoursBack) hours back")
                let sources = try await store.parameters(project: "shop-app", since: since, until: now)
                #expect(sources.answers == hoursBack + 1, "\(hoursBack) hours back")
                var alone = HyperLogLog()
                for hour in (thisHour - hoursBack)...thisHour { alone.add(hash: InstanceHash.of("i\(hour)")) }
                #expect(versions.first?.activeInstances == alone.count, "\(hoursBack) hours back")
            }
            let days = try await store.timeline(
                project: "shop-app", since: now.addingTimeInterval(-7 * 86400), until: now, platform: nil, daily: true)
            #expect(days.count == 5 || days.count == 6)
            #expect(days.reduce(0) { $0 + $1.activeInstances } >= 115)
            let hours = try await store.timeline(
                project: "shop-app", since: now.addingTimeInterval(-86400), until: now, platform: nil, daily: false)
            #expect(hours.count == 25)
        }
    }

    @Test func theVersionsQueryIsIndexBacked() async throws {
        try await TestApp.run { app in
            let others = (1...20).map { "other-app-\($0)" }
            for project in ["shop-app"] + others { try await app.createProject(project) }
            // 14 days of hourly rows (what is kept hourly): 300 versions of this project, 30 of each of 20 others.
            // Written a day at a time: 300,000 rows in one call can outlast the database deadline on a loaded machine.
            for day in 0..<14 {
                try await app.database.run { client in
                    try await client.query(
                        """
                        INSERT INTO insight_versions_hourly (project_id, bucket, platform, version, answers, sketch)
                        SELECT 'shop-app', date_trunc('hour', now()) - make_interval(hours => h), 'IOS', '1.' || v, 1,
                            '\\x01'::bytea
                        FROM generate_series(\(day * 24)::int, \(day * 24 + 23)::int) AS h, generate_series(1, 300) AS v
                        UNION ALL
                        SELECT p, date_trunc('hour', now()) - make_interval(hours => h), 'IOS', '1.' || v, 1,
                            '\\x01'::bytea
                        FROM unnest(\(others)::text[]) AS p, generate_series(\(day * 24)::int, \(day * 24 + 23)::int) AS h,
                            generate_series(1, 30) AS v
                        """
                    ).drain()
                }
            }
            let plan = try await app.database.run { client in
                // And their days, as every flush writes them beside the hours.
                try await client.query(
                    """
                    INSERT INTO insight_versions_daily (project_id, bucket, platform, version, answers, sketch)
                    SELECT p, date_trunc('day', now(), 'UTC') - make_interval(days => d), 'IOS', '1.' || v, 24,
                        '\\x01'::bytea
                    FROM unnest(ARRAY['shop-app']) AS p, generate_series(0, 14) AS d, generate_series(1, 300) AS v
                    """
                ).drain()
                try await client.query("ANALYZE insight_versions_hourly").drain()
                var lines: [String] = []
                // The routes' question: one project's rows of a window.
                for try await line in try await client.query(
                    """
                    EXPLAIN SELECT bucket, platform, version, answers, sketch FROM insight_versions_hourly
                    WHERE project_id = 'shop-app' AND bucket > now() - interval '7 days' AND bucket < now()
                    """
                ).decode(String.self) { lines.append(line) }
                return lines.joined(separator: "\n")
            }
            print(plan)
            #expect(plan.contains("Index"), "\(plan)")
            // Reported, not asserted: timing belongs to benchmarks, the plan is what must hold.
            let start = ContinuousClock.now
            let reply = try await app.call(.get, "/v1/projects/shop-app/insights/versions")
            #expect(reply.status == 200)
            print("insights/versions, a week of 300 versions (hourly and daily rows): \(ContinuousClock.now - start)")
            #expect(!plan.contains("Seq Scan"), "\(plan)")
        }
    }
}
