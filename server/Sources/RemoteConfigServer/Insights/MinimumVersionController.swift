import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `GET …/insights/minimumVersion` (viewer): how high a platform's minimum version can go today without blocking
/// more than a share of its active instances, from the counts `insights/versions` reads, and when newer versions
/// are expected to get there.
struct MinimumVersionController {
    let insights: InsightsStore
    /// False with `--insights off`: the answer has no data, as every insights route's.
    let enabled: Bool
    let published: PublishedTemplates
    let access: ProjectAccess

    /// The parameter that holds the minimum when none is named.
    static let defaultParameter = "min_supported_version"
    /// The blocked share asked for when none is.
    static let defaultMaxBlockedShare = 0.01

    func addRoutes(to routes: Routes) {
        routes.get(
            "/v1/projects/{p}/insights/minimumVersion", query: ["platform", "maxBlockedShare", "parameter", "since"],
            use: minimumVersion)
    }

    @Sendable func minimumVersion(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .viewer)
        let query = try Query(request)
        let now = Date()
        let fleet = MinimumVersionFleet(
            versions: enabled
                ? try await insights.versionTallies(
                    project: project, since: query.since, until: now, platform: query.platform) : [:])
        var current: InsightsMinimumVersionReport.Current?
        let compiled = published.entry(project)?.answers?.compiled
        if let value = Self.servedVersion(
            query.parameter, in: compiled, platform: query.platform, newest: fleet.newest),
            let blocked = fleet.blocked(by: value)
        {
            current = .init(
                parameter: query.parameter, value: value, blockedShare: InsightsController.rounded(blocked.share),
                blockedInstances: blocked.instances)
        }
        let recommended = fleet.recommended(maxBlockedShare: query.maxBlockedShare, current: current?.value)
        let forecast = try await forecast(project, query, fleet: fleet, after: recommended?.version, now: now)
        let report = InsightsMinimumVersionReport(
            platform: query.platform, since: JSONResponse.timestamp(query.since),
            activeInstances: fleet.activeInstances, current: current,
            recommended: recommended.map {
                .init(
                    version: $0.version, blockedShare: InsightsController.rounded($0.share),
                    blockedInstances: $0.instances)
            },
            unknownShare: InsightsController.rounded(fleet.unknownShare), forecast: forecast)
        return try JSONResponse.make(report)
    }

    /// The query, checked; 400 naming the field at fault.
    struct Query {
        let platform: String
        let maxBlockedShare: Double
        let parameter: String
        let since: Date

        init(_ request: Request) throws {
            let parameters = request.uri.queryParameters
            guard let platform = try InsightsController.platform(request) else {
                throw APIError.invalidField(
                    "platform", reason: "REQUIRED", "platform is required: IOS, ANDROID, WEB or UNKNOWN")
            }
            self.platform = platform
            var share = MinimumVersionController.defaultMaxBlockedShare
            if let text = parameters.get("maxBlockedShare") {
                guard let value = Double(text), value.isFinite, value >= 0, value <= 1 else {
                    throw APIError.invalidField(
                        "maxBlockedShare", reason: "INVALID_SHARE", "maxBlockedShare must be a number from 0 to 1")
                }
                share = value
            }
            maxBlockedShare = share
            let parameter = parameters.get("parameter") ?? MinimumVersionController.defaultParameter
            guard !parameter.isEmpty, parameter.utf8.count <= 256 else {
                throw APIError.invalidField(
                    "parameter", reason: "INVALID_PARAMETER", "parameter must be a parameter name")
            }
            self.parameter = parameter
            since = try InsightsController.window(request).0
        }
    }

    /// What `compiled` answers for `parameter` to the platform's newest version (as a fetch from that app would
    /// get it), when that is a version; nil without a template, without the parameter, or when its value is not
    /// a version.
    static func servedVersion(_ parameter: String, in compiled: CompiledTemplate?, platform: String, newest: String?)
        -> String?
    {
        guard let compiled else { return nil }
        let caller = FetchContext(platform: Platform(rawValue: platform), appVersion: newest, now: Date())
        guard let value = compiled.resolve(caller).values[parameter], InsightVersion.label(value) == value else {
            return nil
        }
        return value
    }

    /// For each version seen newer than `after`, its blocked share today and the day it is expected to fall to
    /// the asked share, from the daily shares of the last `BlockedShareForecast.maximumDays` days.
    private func forecast(
        _ project: String, _ query: Query, fleet: MinimumVersionFleet, after: String?, now: Date
    ) async throws -> [InsightsMinimumVersionReport.Forecast] {
        let newer = fleet.candidates(newerThan: after)
        guard enabled, !newer.isEmpty else { return [] }
        let days = try await insights.dailyVersionTallies(
            project: project, since: now.addingTimeInterval(-Double(BlockedShareForecast.maximumDays) * 86_400),
            until: now, platform: query.platform)
        // Each day's shares of every newer version in one pass over its versions, not one pass per version.
        let versions = newer.map(\.version)
        let daily = days.map { day, tallies in
            (day: day, blocked: MinimumVersionFleet(versions: tallies).blocked(by: versions))
        }
        return newer.map { candidate in
            let shares = daily.compactMap { entry in
                entry.blocked[candidate.version].map { (day: entry.day, share: $0.share) }
            }
            let used = min(shares.filter { $0.share > 0 }.count, BlockedShareForecast.maximumDays)
            let date = BlockedShareForecast.crossing(shares, threshold: query.maxBlockedShare)
            return .init(
                version: candidate.version, blockedShare: InsightsController.rounded(candidate.share),
                reachesMaxBlockedShare: date.map(Self.day), basedOnDays: used)
        }
    }

    /// `YYYY-MM-DD` of `date` in UTC; a crossing in the past is today.
    static func day(_ date: Date) -> String {
        let shown = max(date, Date())
        return shown.formatted(Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day())
    }
}
