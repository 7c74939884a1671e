import RemoteConfigAPI
import RemoteConfigCore

/// `/v1/projects/{p}/remoteConfig…`: read, publish, history, rollback, defaults, diff, preview.
extension AdminClient {
    static func templatePath(_ project: String, _ suffix: String = "") -> String {
        "/v1/projects/\(escape(project))/remoteConfig" + suffix
    }

    /// `GET …/remoteConfig[?versionNumber=N]`.
    public func template(project: String, version: Int64? = nil) async throws -> TemplateWithETag {
        let query = version.map { [("versionNumber", String($0))] } ?? []
        let response = try await call("GET", Self.templatePath(project), query: query)
        return TemplateWithETag(template: try response.object(), etag: response.headers["etag"] ?? "*")
    }

    /// `PUT …/remoteConfig[?validateOnly=true]` with `If-Match: ifMatch`.
    public func publish(project: String, template: JSONObject, ifMatch: String, validateOnly: Bool = false)
        async throws -> TemplateWithETag
    {
        let response = try await call(
            "PUT", Self.templatePath(project), query: validateOnly ? [("validateOnly", "true")] : [],
            body: JSONValue.object(template).jsonBytes(), headers: ["If-Match": ifMatch])
        return TemplateWithETag(template: try response.object(), etag: response.headers["etag"] ?? "*")
    }

    /// One page of `GET …/remoteConfig:listVersions`: the versions and the next page's token.
    public func listVersions(project: String, pageSize: Int, pageToken: String?) async throws -> TemplateVersionList {
        var query = [("pageSize", String(pageSize))]
        if let pageToken { query.append(("pageToken", pageToken)) }
        return try await call("GET", Self.templatePath(project, ":listVersions"), query: query)
            .decode(TemplateVersionList.self)
    }

    /// `POST …/remoteConfig:rollback`: publishes a copy of `version`, recorded with `origin` (`CLI`, …).
    public func rollback(project: String, to version: Int64, origin: String? = nil) async throws -> TemplateWithETag {
        let body = try APIEncoder.bytes(RollbackRequest(versionNumber: String(version), updateOrigin: origin))
        let response = try await call("POST", Self.templatePath(project, ":rollback"), body: body)
        return TemplateWithETag(template: try response.object(), etag: response.headers["etag"] ?? "*")
    }

    /// `GET …/remoteConfig:downloadDefaults?format=…`: the file's bytes.
    public func defaults(project: String, format: String) async throws -> [UInt8] {
        try await call(
            "GET", Self.templatePath(project, ":downloadDefaults"), query: [("format", format.uppercased())]
        ).body
    }

    /// `GET …/remoteConfig:diff?from=&to=` (`to` may be `draft`).
    public func diff(project: String, from: String, to: String) async throws -> JSONObject {
        try await call("GET", Self.templatePath(project, ":diff"), query: [("from", from), ("to", to)]).object()
    }

    /// `POST …/remoteConfig:evaluate`: what a fetch with `context` would get, and why.
    public func evaluate(project: String, context: JSONValue, version: String?) async throws -> PreviewAnswer {
        let body = try APIEncoder.bytes(PreviewRequest(context: context, versionNumber: version.map(JSONValue.string)))
        return try await call("POST", Self.templatePath(project, ":evaluate"), body: body).decode(PreviewAnswer.self)
    }
}
