import Foundation
import PostgresNIO
import RemoteConfigCore

extension InsightsStore {
    /// Which rows answer for a window: whole UTC days from the daily rows, the partial days at its edges
    /// from the hourly rows (hours that overlap the window), or from the daily rows once their hours are
    /// gone (older than `hourlyDays`).
    struct Window {
        /// Hourly rows: `bucket > hourlyAfter AND bucket < until AND (bucket < daysFrom OR bucket >= daysUntil)`.
        let hourlyAfter: Date
        let until: Date
        /// Daily rows: `bucket >= daysFrom AND bucket < daysUntil`.
        let daysFrom: Date
        let daysUntil: Date

        init(hourlyAfter: Date, until: Date, daysFrom: Date, daysUntil: Date) {
            self.hourlyAfter = hourlyAfter
            self.until = until
            self.daysFrom = daysFrom
            self.daysUntil = daysUntil
        }

        init(since: Date, until: Date, now: Date = Date()) {
            let dayLength = 86400.0
            let horizon = InsightsStore.day(of: now).addingTimeInterval(-Double(InsightsStore.hourlyDays) * dayLength)
            let sinceDay = InsightsStore.day(of: since)
            // A first day whose hours are gone is read whole from its daily row.
            var from = sinceDay == since || sinceDay < horizon ? sinceDay : sinceDay.addingTimeInterval(dayLength)
            let untilDay = InsightsStore.day(of: until)
            var to = untilDay < horizon && untilDay < until ? untilDay.addingTimeInterval(dayLength) : untilDay
            if to < from {
                // Within one day: hours only.
                from = until
                to = until
            }
            hourlyAfter = since.addingTimeInterval(-3600)
            self.until = until
            daysFrom = from
            daysUntil = to
        }
    }

    /// Version rows of the window (see `Window`); `hourlyOnly` reads the hourly rows alone (a timeline by hour),
    /// `dailyOnly` the daily rows that overlap it (a timeline by day).
    private func versionRows(
        project: String, since: Date, until: Date, platform: String?, hourlyOnly: Bool = false, dailyOnly: Bool = false
    ) async throws -> [(bucket: Date, platform: String, version: String, answers: Int, sketch: HyperLogLog)] {
        let window =
            hourlyOnly
            ? Window(hourlyAfter: since.addingTimeInterval(-3600), until: until, daysFrom: until, daysUntil: until)
            : dailyOnly
                ? Window(hourlyAfter: until, until: until, daysFrom: InsightsStore.day(of: since), daysUntil: until)
                : Window(since: since, until: until)
        return try await database.run { client in
            let rows = try await client.query(
                """
                SELECT bucket, platform, version, answers, sketch FROM insight_versions_hourly
                WHERE project_id = \(project) AND bucket > \(window.hourlyAfter) AND bucket < \(window.until)
                    AND (bucket < \(window.daysFrom) OR bucket >= \(window.daysUntil))
                    AND (\(platform)::text IS NULL OR platform = \(platform))
                UNION ALL
                SELECT bucket, platform, version, answers, sketch FROM insight_versions_daily
                WHERE project_id = \(project) AND bucket >= \(window.daysFrom) AND bucket < \(window.daysUntil)
                    AND (\(platform)::text IS NULL OR platform = \(platform))
                """)
            var result: [(Date, String, String, Int, HyperLogLog)] = []
            for try await (bucket, platform, version, answers, sketch) in rows.decode(
                (Date, String, String, Int64, ByteBuffer).self)
            {
                result.append(
                    (
                        bucket, platform, version, Int(answers),
                        HyperLogLog(serialized: sketch.readableBytesView) ?? HyperLogLog()
                    ))
            }
            return result
        }
    }

    /// Answers and distinct instances by platform and version over `since..<until`.
    public func versions(project: String, since: Date, until: Date, platform: String?) async throws
        -> [InsightPlatformVersions]
    {
        var byVersion: [InsightCounts.VersionKey: InsightCounts.VersionCount] = [:]
        for row in try await versionRows(project: project, since: since, until: until, platform: platform) {
            let key = InsightCounts.VersionKey(platform: row.platform, version: row.version)
            var count = byVersion[key] ?? .init()
            count.answers += row.answers
            count.instances.merge(row.sketch)
            byVersion[key] = count
        }
        var platforms: [String: (sketch: HyperLogLog, answers: Int, versions: [InsightPlatformVersions.Version])] = [:]
        for (key, count) in byVersion {
            var entry = platforms[key.platform] ?? (HyperLogLog(), 0, [])
            entry.sketch.merge(count.instances)
            entry.answers += count.answers
            entry.versions.append(
                .init(version: key.version, activeInstances: count.instances.count, answers: count.answers))
            platforms[key.platform] = entry
        }
        return platforms.keys.sorted().map { name in
            let entry = platforms[name]!
            return InsightPlatformVersions(
                platform: name, activeInstances: entry.sketch.count, answers: entry.answers,
                versions: entry.versions.sorted { InsightVersion.newestFirst($0.version, $1.version) })
        }
    }

    /// Each version's instances over `since..<until` on `platform`: the union of its rows' sketches, from the
    /// same rows `versions` reads.
    public func versionSketches(project: String, since: Date, until: Date, platform: String) async throws
        -> [String: HyperLogLog]
    {
        var sketches: [String: HyperLogLog] = [:]
        for row in try await versionRows(project: project, since: since, until: until, platform: platform) {
            sketches[row.version, default: HyperLogLog()].merge(row.sketch)
        }
        return sketches
    }

    /// Each UTC day's versions' instances on `platform`, for the days that overlap `since..<until`, from the
    /// daily rows (which every flush writes beside the hourly ones).
    public func dailyVersionSketches(project: String, since: Date, until: Date, platform: String) async throws
        -> [Date: [String: HyperLogLog]]
    {
        var days: [Date: [String: HyperLogLog]] = [:]
        for row in try await versionRows(
            project: project, since: since, until: until, platform: platform, dailyOnly: true)
        {
            days[Self.day(of: row.bucket), default: [:]][row.version, default: HyperLogLog()].merge(row.sketch)
        }
        return days
    }

    /// Distinct instances seen over `since..<until` (of one platform, or all): the union of the sketches.
    public func activeInstances(project: String, since: Date, until: Date, platform: String?) async throws -> Int {
        var union = HyperLogLog()
        for row in try await versionRows(project: project, since: since, until: until, platform: platform) {
            union.merge(row.sketch)
        }
        return union.count
    }

    /// Answers by parameter source and matched condition over `since..<until`.
    public func parameters(project: String, since: Date, until: Date) async throws -> InsightParameterSources {
        let window = Window(since: since, until: until)
        return try await database.run { client in
            var total = 0
            let totals = try await client.query(
                """
                SELECT coalesce(sum(answers), 0)::bigint FROM (
                    SELECT answers FROM insight_versions_hourly
                    WHERE project_id = \(project) AND bucket > \(window.hourlyAfter) AND bucket < \(window.until)
                        AND (bucket < \(window.daysFrom) OR bucket >= \(window.daysUntil))
                    UNION ALL
                    SELECT answers FROM insight_versions_daily
                    WHERE project_id = \(project) AND bucket >= \(window.daysFrom) AND bucket < \(window.daysUntil)) AS a
                """)
            for try await sum in totals.decode(Int64.self) { total = Int(sum) }
            var parameters: [String: [InsightParameterSources.Source]] = [:]
            let sources = try await client.query(
                """
                SELECT parameter, source, condition, sum(answers)::bigint FROM (
                    SELECT parameter, source, condition, answers FROM insight_parameters_hourly
                    WHERE project_id = \(project) AND bucket > \(window.hourlyAfter) AND bucket < \(window.until)
                        AND (bucket < \(window.daysFrom) OR bucket >= \(window.daysUntil))
                    UNION ALL
                    SELECT parameter, source, condition, answers FROM insight_parameters_daily
                    WHERE project_id = \(project) AND bucket >= \(window.daysFrom) AND bucket < \(window.daysUntil)) AS p
                GROUP BY parameter, source, condition
                ORDER BY parameter, sum(answers) DESC, source, condition
                """)
            for try await (parameter, source, condition, answers) in sources.decode(
                (String, String, String, Int64).self)
            {
                parameters[parameter, default: []].append(
                    .init(source: source, condition: condition.isEmpty ? nil : condition, answers: Int(answers)))
            }
            var conditions: [String: Int] = [:]
            let matched = try await client.query(
                """
                SELECT condition, sum(matched)::bigint FROM (
                    SELECT condition, matched FROM insight_conditions_hourly
                    WHERE project_id = \(project) AND bucket > \(window.hourlyAfter) AND bucket < \(window.until)
                        AND (bucket < \(window.daysFrom) OR bucket >= \(window.daysUntil))
                    UNION ALL
                    SELECT condition, matched FROM insight_conditions_daily
                    WHERE project_id = \(project) AND bucket >= \(window.daysFrom) AND bucket < \(window.daysUntil)) AS c
                GROUP BY condition
                """)
            for try await (condition, count) in matched.decode((String, Int64).self) {
                conditions[condition] = Int(count)
            }
            return InsightParameterSources(answers: total, parameters: parameters, conditions: conditions)
        }
    }

    /// Distinct instances per hour (`daily` false, from hourly rows only) or per UTC day, oldest first.
    public func timeline(project: String, since: Date, until: Date, platform: String?, daily: Bool) async throws
        -> [InsightTimelineBucket]
    {
        let rows = try await versionRows(
            project: project, since: since, until: until, platform: platform, hourlyOnly: !daily, dailyOnly: daily)
        var buckets: [Date: (all: HyperLogLog, versions: [String: HyperLogLog])] = [:]
        for row in rows {
            let seconds = row.bucket.timeIntervalSince1970
            let start = Date(timeIntervalSince1970: daily ? (seconds / 86400).rounded(.down) * 86400 : seconds)
            var entry = buckets[start] ?? (HyperLogLog(), [:])
            entry.all.merge(row.sketch)
            entry.versions[row.version, default: HyperLogLog()].merge(row.sketch)
            buckets[start] = entry
        }
        return buckets.keys.sorted().map { start in
            let entry = buckets[start]!
            return InsightTimelineBucket(
                start: start, activeInstances: entry.all.count, versions: entry.versions.mapValues(\.count))
        }
    }
}
