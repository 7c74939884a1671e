import RemoteConfigAPI

/// `/v1/projects/{p}/insights/…`, read into the reports the server writes.
extension AdminClient {
    /// `GET …/insights/versions`.
    public func insightsVersions(project: String, platform: String?, since: String?, until: String?) async throws
        -> InsightsVersionsReport
    {
        var query: [(String, String)] = []
        if let platform { query.append(("platform", platform)) }
        if let since { query.append(("since", since)) }
        if let until { query.append(("until", until)) }
        return try await report("/v1/projects/" + Self.escape(project) + "/insights/versions", query)
    }

    /// `GET …/insights/minimumVersion`: how high `platform`'s minimum can go within `maxBlockedShare` (0–1).
    public func insightsMinimumVersion(
        project: String, platform: String, maxBlockedShare: Double?, parameter: String?, since: String?
    ) async throws -> InsightsMinimumVersionReport {
        var query: [(String, String)] = [("platform", platform)]
        if let maxBlockedShare { query.append(("maxBlockedShare", String(maxBlockedShare))) }
        if let parameter { query.append(("parameter", parameter)) }
        if let since { query.append(("since", since)) }
        return try await report("/v1/projects/" + Self.escape(project) + "/insights/minimumVersion", query)
    }

    /// `GET …/insights/parameters`.
    public func insightsParameters(project: String, since: String?, until: String?) async throws
        -> InsightsParametersReport
    {
        var query: [(String, String)] = []
        if let since { query.append(("since", since)) }
        if let until { query.append(("until", until)) }
        return try await report("/v1/projects/" + Self.escape(project) + "/insights/parameters", query)
    }

    /// `POST …/insights:import`: daily active instances per version, `body` being CSV (`text/csv`) or JSON
    /// (`application/json`).
    public func insightsImport(project: String, body: [UInt8], contentType: String) async throws
        -> InsightsImportResult
    {
        try await call(
            "POST", "/v1/projects/" + Self.escape(project) + "/insights:import", body: body,
            headers: ["Content-Type": contentType]
        ).decode(InsightsImportResult.self)
    }

    private func report<Report: Decodable>(_ path: String, _ query: [(String, String)]) async throws -> Report {
        try await call("GET", path, query: query).decode(Report.self)
    }
}
