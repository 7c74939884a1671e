import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// The insights routes (viewer): who is out there, what they got, and adoption over time.
struct InsightsController {
    let insights: InsightsStore
    /// False with `--insights off`: the routes answer `"enabled": false` and no data.
    let enabled: Bool
    let access: ProjectAccess

    /// The window when none is given.
    static let defaultWindow: TimeInterval = 7 * 86400

    func addRoutes(to routes: Routes) {
        routes.get("/v1/projects/{p}/insights/versions", query: ["platform", "since", "until"], use: versions)
        routes.get("/v1/projects/{p}/insights/parameters", query: ["since", "until"], use: parameters)
        routes.get(
            "/v1/projects/{p}/insights/timeline", query: ["platform", "bucket", "since", "until"], use: timeline)
    }

    private func project(_ request: Request, _ context: AppRequestContext) async throws -> String {
        try await access.project(request, context, .viewer).0
    }

    @Sendable func versions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let project = try await project(request, context)
        let (since, until) = try Self.window(request)
        let platform = try Self.platform(request)
        var report = InsightsVersionsReport(
            enabled: enabled, since: JSONResponse.timestamp(since), until: JSONResponse.timestamp(until), platforms: [])
        if enabled {
            report.platforms = try await insights.versions(
                project: project, since: since, until: until, platform: platform
            ).map { platform in
                InsightsVersionsReport.Platform(
                    platform: platform.platform, activeInstances: platform.activeInstances, answers: platform.answers,
                    versions: platform.versions.map {
                        .init(
                            version: $0.version, activeInstances: $0.activeInstances,
                            share: Self.share($0.activeInstances, of: platform.activeInstances), answers: $0.answers)
                    })
            }
        }
        return try Self.response(report)
    }

    @Sendable func parameters(_ request: Request, context: AppRequestContext) async throws -> Response {
        let project = try await project(request, context)
        let (since, until) = try Self.window(request)
        var report = InsightsParametersReport(
            enabled: enabled, since: JSONResponse.timestamp(since), until: JSONResponse.timestamp(until), answers: 0,
            parameters: [:], conditions: [:])
        if enabled {
            let sources = try await insights.parameters(project: project, since: since, until: until)
            report.answers = sources.answers
            report.parameters = sources.parameters.mapValues { list in
                .init(
                    sources: list.map {
                        .init(
                            source: $0.source, condition: $0.condition, answers: $0.answers,
                            share: Self.share($0.answers, of: sources.answers))
                    })
            }
            report.conditions = sources.conditions.mapValues {
                .init(matched: $0, share: Self.share($0, of: sources.answers))
            }
        }
        return try Self.response(report)
    }

    @Sendable func timeline(_ request: Request, context: AppRequestContext) async throws -> Response {
        let project = try await project(request, context)
        let (since, until) = try Self.window(request)
        let platform = try Self.platform(request)
        let bucket = request.uri.queryParameters.get("bucket") ?? "DAY"
        guard bucket == "DAY" || bucket == "HOUR" else {
            throw APIError.invalidField("bucket", reason: "INVALID_BUCKET", "bucket must be HOUR or DAY")
        }
        var report = InsightsTimelineReport(
            enabled: enabled, since: JSONResponse.timestamp(since), until: JSONResponse.timestamp(until),
            bucket: bucket, buckets: [])
        if enabled {
            report.buckets = try await insights.timeline(
                project: project, since: since, until: until, platform: platform, daily: bucket == "DAY"
            ).map {
                .init(
                    start: JSONResponse.timestamp($0.start), activeInstances: $0.activeInstances, versions: $0.versions,
                    source: $0.imported ? "IMPORTED" : "COUNTED")
            }
        }
        return try Self.response(report)
    }

    /// `since` and `until` (RFC 3339), by default the last 7 days; 400 naming the field otherwise.
    static func window(_ request: Request, now: Date = Date()) throws -> (Date, Date) {
        let parameters = request.uri.queryParameters
        var until = now
        if let text = parameters.get("until") {
            guard let date = RFC3339.parse(text) else {
                throw APIError.invalidField("until", reason: "INVALID_TIME", "until must be an RFC 3339 time")
            }
            until = date
        }
        var since = until.addingTimeInterval(-defaultWindow)
        if let text = parameters.get("since") {
            guard let date = RFC3339.parse(text) else {
                throw APIError.invalidField("since", reason: "INVALID_TIME", "since must be an RFC 3339 time")
            }
            since = date
        }
        guard since < until else {
            throw APIError.invalidField("since", reason: "INVALID_RANGE", "since must be before until")
        }
        return (since, until)
    }

    /// `platform`: IOS, ANDROID, WEB or UNKNOWN (any case); 400 naming the field otherwise.
    static func platform(_ request: Request) throws -> String? {
        guard let text = request.uri.queryParameters.get("platform") else { return nil }
        let name = text.uppercased()
        guard Platform(rawValue: name) != nil || name == InsightVersion.unknownPlatform else {
            throw APIError.invalidField(
                "platform", reason: "INVALID_PLATFORM", "platform must be IOS, ANDROID, WEB or UNKNOWN")
        }
        return name
    }

    /// `part / whole` to 4 decimals; 0 of nothing.
    static func share(_ part: Int, of whole: Int) -> Double {
        whole > 0 ? rounded(Double(part) / Double(whole)) : 0
    }

    /// A share to 4 decimals, as every insights route writes it.
    static func rounded(_ share: Double) -> Double { (share * 10_000).rounded() / 10_000 }

    /// Written by the server's one JSON writer, members in the report's order.
    private static func response(_ report: some Encodable) throws -> Response {
        try JSONResponse.make(report)
    }
}
