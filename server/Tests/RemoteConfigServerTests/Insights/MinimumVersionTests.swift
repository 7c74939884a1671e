import Foundation
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// `insights/minimumVersion`: how high the minimum can go for a known fleet, figure by figure, and when newer
/// versions get there on adoption curves whose true crossing is known.
@Suite struct MinimumVersionTests {
    static func template(minimum: String) -> JSONValue {
        [
            "parameters": [
                "min_supported_version": ["defaultValue": ["value": .string(minimum)], "valueType": "STRING"]
            ]
        ]
    }

    static func report(_ app: TestApp.Session, _ project: String, _ query: String) async throws
        -> InsightsMinimumVersionReport
    {
        let reply = try await app.call(.get, "/v1/projects/\(project)/insights/minimumVersion?\(query)")
        try SetupFailure.unless(reply.status == 200, reply.text)
        return try JSONDecoder().decode(InsightsMinimumVersionReport.self, from: reply.body)
    }

    /// The sketch of `ids`, as the server counts them.
    static func sketch(_ ids: [String]) -> HyperLogLog {
        var sketch = HyperLogLog()
        for id in ids { sketch.add(hash: InstanceHash.of(id)) }
        return sketch
    }

    @Test func aKnownFleetGetsEveryFigure() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            try await app.createProject("shop-app")
            #expect(try await app.publish("shop-app", Self.template(minimum: "2.0.0")).status == 200)
            let key = try await app.createKey(role: "client", project: "shop-app").secret
            let fleet: [(version: String, count: Int)] = [("1.9.0", 5), ("2.0.0", 10), ("2.1.0", 80), ("garbage", 5)]
            var ids: [String: [String]] = [:]
            for (version, count) in fleet {
                for index in 0..<count {
                    let id = "\(version)-\(index)"
                    ids[version, default: []].append(id)
                    let reply = try await ClientCalls.fetch(app, key: key, InsightsTests.body(id, "IOS", version))
                    #expect(reply.status == 200)
                }
            }
            // An Android device counts for Android only.
            #expect(
                try await ClientCalls.fetch(app, key: key, InsightsTests.body("a-1", "ANDROID", "1.0.0")).status == 200)
            try await app.environment.flushInsights()
            let all = Self.sketch(ids.values.flatMap { $0 }).count
            let unknown = Self.sketch(ids["garbage"]!).count
            func share(_ part: Int) -> Double { (Double(part) / Double(all) * 10_000).rounded() / 10_000 }
            let blockedBy200 = Self.sketch(ids["garbage"]! + ids["1.9.0"]!).count
            let blockedBy210 = Self.sketch(ids["garbage"]! + ids["1.9.0"]! + ids["2.0.0"]!).count

            let within20 = try await Self.report(app, "shop-app", "platform=IOS&maxBlockedShare=0.15")
            #expect(within20.platform == "IOS")
            #expect(within20.activeInstances == all)
            #expect(within20.unknownShare == share(unknown))
            #expect(
                within20.current
                    == .init(
                        parameter: "min_supported_version", value: "2.0.0", blockedShare: share(blockedBy200),
                        blockedInstances: blockedBy200))
            // 2.1.0 would block a fifth: the newest within 15% is the current minimum itself.
            #expect(
                within20.recommended
                    == .init(version: "2.0.0", blockedShare: share(blockedBy200), blockedInstances: blockedBy200))
            #expect(within20.forecast.map(\.version) == ["2.1.0"])
            #expect(within20.forecast.first?.blockedShare == share(blockedBy210))
            #expect(within20.forecast.first?.reachesMaxBlockedShare == nil, "one day of data")
            #expect(within20.forecast.first?.basedOnDays == 1)

            let within30 = try await Self.report(app, "shop-app", "platform=ios&maxBlockedShare=0.3")
            #expect(
                within30.recommended
                    == .init(version: "2.1.0", blockedShare: share(blockedBy210), blockedInstances: blockedBy210))
            #expect(within30.forecast.isEmpty)
            // The default share, 1%: below what even the oldest version blocks, so the current minimum stays.
            let byDefault = try await Self.report(app, "shop-app", "platform=IOS")
            #expect(byDefault.recommended?.version == "2.0.0")
            // A parameter that is not there has no current value; the recommendation stands on its own.
            let other = try await Self.report(app, "shop-app", "platform=IOS&maxBlockedShare=0.3&parameter=nope")
            #expect(other.current == nil)
            #expect(other.recommended?.version == "2.1.0")
            let android = try await Self.report(app, "shop-app", "platform=ANDROID&maxBlockedShare=0.3")
            #expect(android.activeInstances == 1)
            // Never below the current minimum, even where an older one would block nobody.
            #expect(android.recommended == .init(version: "2.0.0", blockedShare: 1, blockedInstances: 1))
            // No data: nothing to recommend.
            let web = try await Self.report(app, "shop-app", "platform=WEB")
            #expect(web.activeInstances == 0 && web.recommended == nil && web.forecast.isEmpty)
        }
    }

    @Test func badQueriesNameTheFieldAndClientKeysAreRefused() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: "client", project: "shop-app").secret
            for (query, field) in [
                ("", "platform"), ("platform=MAC", "platform"), ("platform=IOS&maxBlockedShare=2", "maxBlockedShare"),
                ("platform=IOS&maxBlockedShare=x", "maxBlockedShare"), ("platform=IOS&since=yesterday", "since"),
                ("platform=IOS&parameter=", "parameter"),
            ] {
                let reply = try await app.call(.get, "/v1/projects/shop-app/insights/minimumVersion?\(query)")
                #expect(reply.status == 400, "\(query)")
                #expect(reply.text.contains("\"\(field)\""), "\(query): \(reply.text)")
            }
            let refused = try await app.call(
                .get, "/v1/projects/shop-app/insights/minimumVersion?platform=IOS", token: key)
            #expect(refused.status == 401 || refused.status == 403)
            let missing = try await app.call(.get, "/v1/projects/no-such-app/insights/minimumVersion?platform=IOS")
            #expect(missing.status == 404)
        }
    }

    /// Daily rows of one project: each day `total` iOS instances, `old(t)` of them on 1.0.0 and the rest on
    /// 2.0.0, for the `days` days before today (t = 0 the first).
    static func seed(
        _ app: TestApp.Session, _ project: String, days: Int, total: Int = 1_000, old: (Double) -> Double
    ) async throws {
        let today = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
        var buckets: [Date] = []
        var versions: [String] = []
        var sketches: [ByteBuffer] = []
        for t in 0..<days {
            let day = today.addingTimeInterval(-Double(days - t) * 86_400)
            let onOld = Int((Double(total) * old(Double(t))).rounded())
            let ids = (0..<total).map { "\(project)-\(t)-\($0)" }
            for (version, part) in [("1.0.0", ids.prefix(onOld)), ("2.0.0", ids.dropFirst(onOld))] where !part.isEmpty {
                buckets.append(day)
                versions.append(version)
                sketches.append(ByteBuffer(bytes: Self.sketch(Array(part)).serialized()))
            }
        }
        let rows = (buckets, versions, sketches)
        try await app.database.run { client in
            let (buckets, versions, sketches) = rows
            try await client.query(
                """
                INSERT INTO insight_versions_daily (project_id, bucket, platform, version, answers, sketch)
                SELECT \(project), bucket, 'IOS', version, 1, sketch
                FROM unnest(\(buckets)::timestamptz[], \(versions)::text[], \(sketches)::bytea[])
                    AS u(bucket, version, sketch)
                """
            ).drain()
        }
    }

    @Test func forecastsFindTheCrossingOfAFallingShareAndNoneWhereItDoesNotFall() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            // A seeded noise of ±3%, the same every run.
            var state: UInt64 = 20_261_203
            func noise() -> Double {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return 1 + (Double(state >> 11) / Double(1 << 53) - 0.5) * 0.06
            }
            let curves: [(project: String, days: Int, old: (Double) -> Double)] = [
                ("falling", 15, { t in 0.6 * exp(-0.12 * t) * noise() }),
                ("plateau", 15, { _ in 0.3 }),
                ("rising", 15, { t in 0.1 + 0.02 * t }),
                ("too-new", 4, { t in 0.6 * exp(-0.12 * t) }),
            ]
            for curve in curves {
                try await app.createProject(curve.project)
                #expect(try await app.publish(curve.project, Self.template(minimum: "1.0.0")).status == 200)
                try await Self.seed(app, curve.project, days: curve.days, old: curve.old)
            }
            let falling = try await Self.report(app, "falling", "platform=IOS&maxBlockedShare=0.05")
            #expect(falling.recommended?.version == "1.0.0")
            let forecast = try #require(falling.forecast.first { $0.version == "2.0.0" })
            #expect(forecast.basedOnDays == 15)
            // The curve's own crossing: 0.6 e^(-0.12 t) = 0.05 at t = ln(12) / 0.12, counted from the first day.
            let today = (Date().timeIntervalSince1970 / 86_400).rounded(.down) * 86_400
            let first = today - 15 * 86_400
            let crossing = first + log(12) / 0.12 * 86_400
            let crossingDay = Date(timeIntervalSince1970: (crossing / 86_400).rounded(.down) * 86_400)
            let reported = try #require(forecast.reachesMaxBlockedShare.flatMap(Self.day), "\(forecast)")
            #expect(abs(reported.timeIntervalSince(crossingDay)) <= 86_400, "\(reported) against \(crossingDay)")
            for flat in ["plateau", "rising", "too-new"] {
                let report = try await Self.report(app, flat, "platform=IOS&maxBlockedShare=0.05")
                let forecast = try #require(report.forecast.first { $0.version == "2.0.0" }, "\(flat)")
                #expect(forecast.reachesMaxBlockedShare == nil, "\(flat): \(forecast)")
            }
        }
    }

    @Test func aYearOfDailyRowsOfThreeHundredVersionsIsReadThroughTheIndex() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            try await app.createProject("shop-app")
            #expect(try await app.publish("shop-app", Self.template(minimum: "1.0.0")).status == 200)
            let versions = (0..<300).map { "1.\($0 / 10).\($0 % 10)" }
            let sketches = versions.map { version in
                ByteBuffer(bytes: Self.sketch((0..<40).map { "\(version)-\($0)" }).serialized())
            }
            // A month of days a call: a year in one call can outlast the database deadline on a loaded machine.
            for month in 0..<13 {
                try await app.database.run { client in
                    try await client.query(
                        """
                        INSERT INTO insight_versions_daily (project_id, bucket, platform, version, answers, sketch)
                        SELECT 'shop-app', date_trunc('day', now(), 'UTC') - make_interval(days => d), 'IOS', v, 40, s
                        FROM unnest(\(versions)::text[], \(sketches)::bytea[]) AS u(v, s),
                            generate_series(\(month * 28 + 1)::int, \(month * 28 + 28)::int) AS d
                        """
                    ).drain()
                }
            }
            let plan = try await app.database.run { client in
                try await client.query("ANALYZE insight_versions_daily").drain()
                var lines: [String] = []
                for try await line in try await client.query(
                    """
                    EXPLAIN SELECT bucket, platform, version, answers, sketch FROM insight_versions_daily
                    WHERE project_id = 'shop-app' AND bucket >= now() - interval '28 days' AND bucket < now()
                        AND platform = 'IOS'
                    """
                ).decode(String.self) { lines.append(line) }
                return lines.joined(separator: "\n")
            }
            #expect(plan.contains("Index") && !plan.contains("Seq Scan"), "\(plan)")
            // Reported, not asserted: timing belongs to benchmarks, the plan is what must hold.
            let start = ContinuousClock.now
            let report = try await Self.report(app, "shop-app", "platform=IOS&maxBlockedShare=0.5")
            print("insights/minimumVersion, 364 days of 300 versions: \(ContinuousClock.now - start)")
            #expect(report.recommended != nil)
            #expect(!report.forecast.isEmpty)
        }
    }

    /// The start of a `YYYY-MM-DD` day, UTC.
    static func day(_ text: String) -> Date? { try? Date(text + "T00:00:00Z", strategy: .iso8601) }
}
