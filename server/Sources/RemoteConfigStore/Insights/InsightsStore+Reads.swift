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

    /// One version row: counted (`answers` and the instances' sketch) or imported (`imported`, a day's active
    /// instances as reported, with no answers and an empty sketch).
    struct VersionRow {
        let bucket: Date
        let platform: String
        let version: String
        let answers: Int
        let sketch: HyperLogLog
        let imported: Int?

        /// The row's instances, an imported count spread over `days` (the window it is read for).
        func tally(days: Double) -> InstanceTally {
            imported.map { InstanceTally(reported: Double($0) / days) } ?? InstanceTally(sketch: sketch)
        }
    }

    /// Version rows of the window (see `Window`); `hourlyOnly` reads the hourly rows alone (a timeline by hour),
    /// `dailyOnly` the daily rows that overlap it (a timeline by day). Imported days take the place of counted
    /// rows for their day and platform: the counted rows of such a day are left out, and the imported ones of the
    /// days the window overlaps are read instead (none by the hour, which imports do not have). With
    /// `importedSummed` (a read of the whole window), the database sums the imported days of each platform and
    /// version into one row, so a year of imported history is a few hundred rows rather than one per day.
    private func versionRows(
        project: String, since: Date, until: Date, platform: String?, hourlyOnly: Bool = false, dailyOnly: Bool = false,
        importedSummed: Bool = false
    ) async throws -> [VersionRow] {
        let window =
            hourlyOnly
            ? Window(hourlyAfter: since.addingTimeInterval(-3600), until: until, daysFrom: until, daysUntil: until)
            : dailyOnly
                ? Window(hourlyAfter: until, until: until, daysFrom: InsightsStore.day(of: since), daysUntil: until)
                : Window(since: since, until: until)
        let importedFrom = hourlyOnly ? until : InsightsStore.day(of: since)
        return try await database.run { client in
            let rows = try await client.query(
                """
                SELECT bucket, platform, version, answers, sketch, NULL::bigint FROM insight_versions_hourly h
                WHERE project_id = \(project) AND bucket > \(window.hourlyAfter) AND bucket < \(window.until)
                    AND (bucket < \(window.daysFrom) OR bucket >= \(window.daysUntil))
                    AND (\(platform)::text IS NULL OR platform = \(platform))
                    AND NOT EXISTS (
                        SELECT 1 FROM insight_versions_imported i WHERE i.project_id = h.project_id
                            AND i.platform = h.platform AND i.bucket = date_trunc('day', h.bucket, 'UTC'))
                UNION ALL
                SELECT bucket, platform, version, answers, sketch, NULL::bigint FROM insight_versions_daily d
                WHERE project_id = \(project) AND bucket >= \(window.daysFrom) AND bucket < \(window.daysUntil)
                    AND (\(platform)::text IS NULL OR platform = \(platform))
                    AND NOT EXISTS (
                        SELECT 1 FROM insight_versions_imported i WHERE i.project_id = d.project_id
                            AND i.platform = d.platform AND i.bucket = d.bucket)
                UNION ALL
                SELECT min(bucket), platform, version, 0::bigint, NULL::bytea, sum(active_instances)::bigint
                FROM insight_versions_imported
                WHERE project_id = \(project) AND bucket >= \(importedFrom) AND bucket < \(until)
                    AND (\(platform)::text IS NULL OR platform = \(platform))
                GROUP BY platform, version, CASE WHEN \(importedSummed) THEN NULL ELSE bucket END
                """)
            var result: [VersionRow] = []
            for try await (bucket, platform, version, answers, sketch, imported) in rows.decode(
                (Date, String, String, Int64, ByteBuffer?, Int64?).self)
            {
                result.append(
                    VersionRow(
                        bucket: bucket, platform: platform, version: version, answers: Int(answers),
                        sketch: sketch.flatMap { HyperLogLog(serialized: $0.readableBytesView) } ?? HyperLogLog(),
                        imported: imported.map { Int($0) }))
            }
            return result
        }
    }

    /// How many days a window stands for: what an imported day's count is divided by over it, so that a
    /// version's instances over a week of imported days are its average day's (at least one day).
    static func days(since: Date, until: Date) -> Double {
        max(1, until.timeIntervalSince(since) / 86400)
    }

    /// Answers and distinct instances by platform and version over `since..<until`.
    public func versions(project: String, since: Date, until: Date, platform: String?) async throws
        -> [InsightPlatformVersions]
    {
        let days = Self.days(since: since, until: until)
        var byVersion: [InsightCounts.VersionKey: (answers: Int, instances: InstanceTally)] = [:]
        for row in try await versionRows(
            project: project, since: since, until: until, platform: platform, importedSummed: true)
        {
            let key = InsightCounts.VersionKey(platform: row.platform, version: row.version)
            // In place, so a version's sketch is not copied for each of its rows.
            byVersion[key, default: (0, InstanceTally())].answers += row.answers
            byVersion[key, default: (0, InstanceTally())].instances.merge(row.tally(days: days))
        }
        var platforms: [String: (tally: InstanceTally, answers: Int, versions: [InsightPlatformVersions.Version])] =
            [:]
        for (key, count) in byVersion {
            var entry = platforms[key.platform] ?? (InstanceTally(), 0, [])
            entry.tally.merge(count.instances)
            entry.answers += count.answers
            entry.versions.append(
                .init(version: key.version, activeInstances: count.instances.count, answers: count.answers))
            platforms[key.platform] = entry
        }
        return platforms.keys.sorted().map { name in
            let entry = platforms[name]!
            return InsightPlatformVersions(
                platform: name, activeInstances: entry.tally.count, answers: entry.answers,
                versions: entry.versions.sorted { InsightVersion.newestFirst($0.version, $1.version) })
        }
    }

    /// Each version's instances over `since..<until` on `platform`, from the same rows `versions` reads.
    public func versionTallies(project: String, since: Date, until: Date, platform: String) async throws
        -> [String: InstanceTally]
    {
        let days = Self.days(since: since, until: until)
        var tallies: [String: InstanceTally] = [:]
        for row in try await versionRows(
            project: project, since: since, until: until, platform: platform, importedSummed: true)
        {
            tallies[row.version, default: InstanceTally()].merge(row.tally(days: days))
        }
        return tallies
    }

    /// Each UTC day's versions' instances on `platform`, for the days that overlap `since..<until`, from the
    /// daily rows (which every flush writes beside the hourly ones) and the imported days.
    public func dailyVersionTallies(project: String, since: Date, until: Date, platform: String) async throws
        -> [Date: [String: InstanceTally]]
    {
        var days: [Date: [String: InstanceTally]] = [:]
        for row in try await versionRows(
            project: project, since: since, until: until, platform: platform, dailyOnly: true)
        {
            days[Self.day(of: row.bucket), default: [:]][row.version, default: InstanceTally()].merge(
                row.tally(days: 1))
        }
        return days
    }

    /// Instances seen over `since..<until` (of one platform, or all): the union of the sketches, and the imported
    /// days' counts.
    public func activeInstances(project: String, since: Date, until: Date, platform: String?) async throws -> Int {
        let days = Self.days(since: since, until: until)
        var union = InstanceTally()
        for row in try await versionRows(
            project: project, since: since, until: until, platform: platform, importedSummed: true)
        {
            union.merge(row.tally(days: days))
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

    /// One bucket of a timeline while its rows are read.
    private struct TimelineBucket {
        var all = InstanceTally()
        var versions: [String: InstanceTally] = [:]
        var imported = false

        mutating func add(_ row: VersionRow) {
            let tally = row.tally(days: 1)
            all.merge(tally)
            versions[row.version, default: InstanceTally()].merge(tally)
            imported = imported || row.imported != nil
        }
    }

    /// Instances per hour (`daily` false, from hourly rows only) or per UTC day, oldest first; a day is
    /// `imported` when any of its rows came from an import.
    public func timeline(project: String, since: Date, until: Date, platform: String?, daily: Bool) async throws
        -> [InsightTimelineBucket]
    {
        let rows = try await versionRows(
            project: project, since: since, until: until, platform: platform, hourlyOnly: !daily, dailyOnly: daily)
        var buckets: [Date: TimelineBucket] = [:]
        for row in rows {
            let seconds = row.bucket.timeIntervalSince1970
            let start = Date(timeIntervalSince1970: daily ? (seconds / 86400).rounded(.down) * 86400 : seconds)
            // Changed in place: a copy taken out and put back would copy the bucket's versions for every row.
            buckets[start, default: TimelineBucket()].add(row)
        }
        return buckets.keys.sorted().map { start in
            let entry = buckets[start]!
            return InsightTimelineBucket(
                start: start, activeInstances: entry.all.count, versions: entry.versions.mapValues(\.count),
                imported: entry.imported)
        }
    }
}
