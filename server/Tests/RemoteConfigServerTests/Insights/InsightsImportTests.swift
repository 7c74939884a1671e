import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// `insights:import`: history from App Store Connect or the Play Console takes the place of the counted days of
/// its day and platform in every insights route, is replaced when imported again, and a bad row keeps nothing.
@Suite struct InsightsImportTests {
    /// `YYYY-MM-DD` of the UTC day `days` before today.
    static func day(_ days: Int, from now: Date = Date()) -> String {
        now.addingTimeInterval(-Double(days) * 86400)
            .formatted(Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day())
    }

    static func post(_ app: TestApp.Session, _ project: String, _ body: String, type: String = "text/csv")
        async throws -> TestApp.Reply
    {
        try await app.call(
            .post, "/v1/projects/\(project)/insights:import", raw: ByteBuffer(string: body),
            headers: [.contentType: type])
    }

    static func versions(_ app: TestApp.Session, _ query: String) async throws -> InsightsVersionsReport {
        let reply = try await app.call(.get, "/v1/projects/shop-app/insights/versions?\(query)")
        try SetupFailure.unless(reply.status == 200, reply.text)
        return try JSONDecoder().decode(InsightsVersionsReport.self, from: reply.body)
    }

    /// A week of iOS history: every day 900 on 2.1.0, 90 on 2.0.0 and 10 on 1.9.0, so over the week 1.9.0 is 1%
    /// and 2.0.0 9% of the fleet.
    static func week() -> String {
        var lines = ["date,platform,version,activeInstances"]
        for days in 1...7 {
            lines += ["\(day(days)),IOS,2.1.0,900", "\(day(days)),IOS,2.0.0,90", "\(day(days)),IOS,1.9.0,10"]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func importedDaysGiveEveryFigureAndTakeThePlaceOfCountedOnes() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            try await app.createProject("shop-app")
            #expect(try await app.publish("shop-app", MinimumVersionTests.template(minimum: "1.9.0")).status == 200)
            let key = try await app.createKey(role: "client", project: "shop-app").secret
            // Counted today: 3 iOS instances (replaced once today is imported) and 2 Android ones (kept).
            for (id, platform) in [
                ("i-1", "IOS"), ("i-2", "IOS"), ("i-3", "IOS"), ("a-1", "ANDROID"), ("a-2", "ANDROID"),
            ] {
                #expect(
                    try await ClientCalls.fetch(app, key: key, InsightsTests.body(id, platform, "1.0.0")).status == 200)
            }
            try await app.environment.flushInsights()

            let reply = try await Self.post(app, "shop-app", Self.week())
            #expect(reply.status == 200, "\(reply.text)")
            let result = try JSONDecoder().decode(InsightsImportResult.self, from: reply.body)
            #expect(
                result == .init(importedRows: 21, firstDate: Self.day(7), lastDate: Self.day(1), platforms: ["IOS"]))

            // Over the last 7 days: a version's instances are its average day's (7 days of 900 are 900); today's
            // 3 counted iOS instances are there too, on 1.0.0, as today was not imported.
            let since = RFC3339.format(Date().addingTimeInterval(-7 * 86400))
            let week = try await Self.versions(app, "platform=IOS&since=\(since)")
            let ios = try #require(week.platforms.first)
            #expect(ios.versions.map(\.version) == ["2.1.0", "2.0.0", "1.9.0", "1.0.0"])
            #expect(ios.versions.map(\.activeInstances) == [900, 90, 10, 3])
            #expect(ios.activeInstances == 1003)
            #expect(ios.versions.first?.answers == 0, "an import has no answers")

            // Today imported too: its counted iOS rows give way, the Android ones stay.
            let today = "date,platform,version,activeInstances\n\(Self.day(0)),IOS,2.1.0,700\n"
            #expect(try await Self.post(app, "shop-app", today).status == 200)
            let withToday = try await Self.versions(app, "since=\(since)")
            #expect(withToday.platforms.map(\.platform) == ["ANDROID", "IOS"])
            #expect(withToday.platforms[0].activeInstances == 2)
            #expect(!withToday.platforms[1].versions.contains { $0.version == "1.0.0" })
            // (7 × 900 + 700) / 7 days.
            #expect(withToday.platforms[1].versions.first?.activeInstances == 1000)

            // Imported again, a day, platform and version is replaced, not added.
            let again = "date,platform,version,activeInstances\n\(Self.day(0)),IOS,2.1.0,0\n"
            #expect(try await Self.post(app, "shop-app", again).status == 200)
            #expect(try await Self.versions(app, "since=\(since)").platforms[1].versions.first?.activeInstances == 900)

            // The minimum: 1.9.0 is the current one; raising it to 2.0.0 blocks 1%, to 2.1.0 10%.
            let minimum = try await MinimumVersionTests.report(app, "shop-app", "platform=IOS&maxBlockedShare=0.01")
            #expect(minimum.activeInstances == 1000)
            #expect(minimum.current?.value == "1.9.0")
            #expect(minimum.current?.blockedShare == 0)
            #expect(minimum.recommended == .init(version: "2.0.0", blockedShare: 0.01, blockedInstances: 10))
            #expect(minimum.forecast.map(\.version) == ["2.1.0"])
            #expect(minimum.forecast.first?.blockedShare == 0.1)
            #expect(minimum.forecast.first?.basedOnDays == 7)
            #expect(minimum.forecast.first?.reachesMaxBlockedShare == nil, "a share that is not falling")

            // The daily timeline says which days were imported.
            let timeline = try await app.call(
                .get, "/v1/projects/shop-app/insights/timeline?platform=IOS&since=\(since)")
            let buckets = try JSONDecoder().decode(InsightsTimelineReport.self, from: timeline.body).buckets
            #expect(buckets.count == 8)
            #expect(buckets.allSatisfy { $0.source == "IMPORTED" })
            #expect(
                buckets.first { $0.start.hasPrefix(Self.day(3)) }?.versions == ["2.1.0": 900, "2.0.0": 90, "1.9.0": 10])
            #expect(buckets.first { $0.start.hasPrefix(Self.day(3)) }?.activeInstances == 1000)
            let android = try await app.call(.get, "/v1/projects/shop-app/insights/timeline?platform=ANDROID")
            #expect(
                try JSONDecoder().decode(InsightsTimelineReport.self, from: android.body).buckets.map(\.source) == [
                    "COUNTED"
                ])

            // Audited, with who and how much.
            let audit = try await app.call(.get, "/v1/projects/shop-app/auditLog")
            #expect(audit.text.contains("insights.import"))
        }
    }

    @Test func aBadRowIsRefusedWithItsLineAndFieldAndNothingIsKept() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            try await app.createProject("shop-app")
            let good = "\(Self.day(1)),IOS,2.1.0,900"
            let cases: [(body: String, field: String, reason: String)] = [
                (
                    "date,platform,version,activeInstances\n\(good)\n\(Self.day(1)),IOS,two,5\n", "lines.3.version",
                    "INVALID_VERSION"
                ),
                (
                    "date,platform,version,activeInstances\n\(good)\n\(Self.day(1)),BLACKBERRY,2.0.0,5\n",
                    "lines.3.platform", "INVALID_PLATFORM"
                ),
                (
                    "date,platform,version,activeInstances\n\(good)\n\(Self.day(1)),IOS,2.0.0,-5\n",
                    "lines.3.activeInstances", "INVALID_COUNT"
                ),
                (
                    "date,platform,version,activeInstances\n\(good)\n30/11/2026,IOS,2.0.0,5\n", "lines.3.date",
                    "INVALID_DATE"
                ),
                (
                    "date,platform,version,activeInstances\n\(good)\n\(Self.day(-2)),IOS,2.0.0,5\n", "lines.3.date",
                    "OUT_OF_RETENTION"
                ),
                (
                    "date,platform,version,activeInstances\n\(good)\n\(Self.day(400)),IOS,2.0.0,5\n", "lines.3.date",
                    "OUT_OF_RETENTION"
                ),
                ("date,platform,version,activeInstances\n\(good)\n\(good)\n", "lines.3.version", "DUPLICATE_ROW"),
                (
                    "date,platform,version,activeInstances\n\(good)\n\(Self.day(1)),IOS\n", "lines.3",
                    "WRONG_FIELD_COUNT"
                ),
                ("day,os,build,users\n\(good)\n", "lines.1", "INVALID_HEADER"),
            ]
            for (body, field, reason) in cases {
                let reply = try await Self.post(app, "shop-app", body)
                #expect(reply.status == 400, "\(body)")
                #expect(reply.text.contains("\"field\":\"\(field)\""), "\(body): \(reply.text)")
                #expect(reply.text.contains("\"reason\":\"\(reason)\""), "\(body): \(reply.text)")
            }
            // JSON names the row.
            let json =
                #"{"rows": [{"date": "\#(Self.day(1))", "platform": "IOS", "version": "2.1.0", "activeInstances": 9}, {"date": "\#(Self.day(1))", "platform": "IOS", "version": "2.0.0", "activeInstances": "many"}]}"#
            let refused = try await Self.post(app, "shop-app", json, type: "application/json")
            #expect(refused.status == 400)
            #expect(refused.text.contains(#""field":"rows.1.activeInstances""#), "\(refused.text)")
            // Neither CSV nor JSON.
            let xml = try await Self.post(app, "shop-app", "<rows/>", type: "application/xml")
            #expect(xml.status == 415)
            // More than 100,000 rows.
            let many =
                "date,platform,version,activeInstances\n"
                + (0..<100_001).map { "\(Self.day(1 + $0 % 80)),IOS,\($0 / 80).0.0,1" }.joined(separator: "\n")
            let tooMany = try await Self.post(app, "shop-app", many)
            #expect(tooMany.status == 400)
            #expect(tooMany.text.contains(#""reason":"TOO_MANY_ROWS""#), "\(tooMany.text.prefix(300))")
            // Nothing of any refused call was kept.
            #expect(try await Self.versions(app, "").platforms.isEmpty)
            // And the good row alone, as JSON, is.
            let accepted =
                #"{"rows": [{"date": "\#(Self.day(1))", "platform": "ios", "version": "2.1.0", "activeInstances": 9}]}"#
            #expect(try await Self.post(app, "shop-app", accepted, type: "application/json").status == 200)
            let since = RFC3339.format(Date().addingTimeInterval(-86400 * 1.5))
            let kept = try await Self.versions(app, "since=\(since)&until=\(RFC3339.format(Date()))")
            #expect(kept.platforms.first?.versions.map(\.version) == ["2.1.0"])
        }
    }
}
