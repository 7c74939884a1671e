import Foundation
import Hummingbird
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// The published template: read, publish, history, rollback, defaults and diff.
struct TemplatesController {
    let templates: TemplateStore
    let drafts: DraftStore
    let access: ProjectAccess
    /// The one publish path's follow-up: metrics, and this server's cache told at once.
    let publishing: Publishing
    /// Where a large template is validated and compiled.
    let heavyWork: HeavyWork

    func addRoutes(to routes: Routes) {
        routes.get("/v1/projects/{p}/remoteConfig", query: ["versionNumber"], use: get)
        routes.put("/v1/projects/{p}/remoteConfig", query: ["validateOnly"], use: publish)
        routes.get(
            "/v1/projects/{p}/remoteConfig:listVersions",
            query: ["pageSize", "pageToken", "endVersionNumber", "startTime", "endTime"], use: listVersions)
        routes.post("/v1/projects/{p}/remoteConfig:rollback", use: rollback)
        routes.get("/v1/projects/{p}/remoteConfig:downloadDefaults", query: ["format"], use: downloadDefaults)
        routes.get("/v1/projects/{p}/remoteConfig:diff", query: ["from", "to"], use: diff)
    }

    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .viewer)
        if let number = try TemplateHTTP.versionNumber(
            request.uri.queryParameters.get("versionNumber"), field: "versionNumber")
        {
            guard let stored = try await templates.version(project, number) else {
                throw APIError.notFound("version \(number) of \(project) not found")
            }
            return TemplateHTTP.response(
                try TemplateHTTP.templateJSON(stored), etag: TemplateHTTP.etag(project: project, version: number))
        }
        guard let stored = try await templates.latest(project) else {
            return TemplateHTTP.response(
                TemplateHTTP.emptyTemplate, etag: TemplateHTTP.etag(project: project, version: 0))
        }
        return try TemplateHTTP.response(for: stored)
    }

    @Sendable func publish(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .editor)
        let precondition = try TemplateHTTP.precondition(request, kind: "etag", project: project)
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let prepared = try await TemplateHTTP.prepare(body, on: heavyWork)
        let template = prepared.template
        let expected: Int64?
        switch precondition {
        case .any: expected = nil
        case .number(let number): expected = number ?? -1
        case .unsavedDraft: expected = -1  // a draft's ETag never matches the published template
        }
        let publishRequest = PublishRequest(
            templateJSON: prepared.storedJSON, expectedVersion: expected,
            updateType: expected == nil ? .forcedUpdate : .incrementalUpdate, updateUser: key.auditActor.updateUser,
            updateOrigin: Self.origin(template.version?.updateOrigin), description: template.version?.description ?? "")

        if try request.flag("validateOnly") {
            let latest = try await templates.latest(project)?.versionNumber ?? 0
            if let expected, expected != latest { throw TemplateHTTP.stale("published template") }
            // What a publish would store: it may drop a halted rollout's condition, or refuse a reserved name.
            let kept = try await templates.check(project, templateJSON: prepared.storedJSON)
            var object =
                kept == prepared.storedJSON
                ? template.jsonValue.objectValue ?? [:] : try JSONValue(parsing: kept).objectValue ?? [:]
            object["version"] = nil
            return TemplateHTTP.response(object, etag: TemplateHTTP.etag(project: project, version: latest))
        }
        let stored = try await templates.publish(project, publishRequest, actor: key.auditActor)
        await publishing.announce(stored, prepared: prepared)
        return try TemplateHTTP.response(for: stored)
    }

    @Sendable func listVersions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .viewer)
        let parameters = request.uri.queryParameters
        var query = VersionQuery()
        // Version numbers are the tokens, so a bad one is refused as any version number is.
        let asked = try PageRequest(request, maximum: 300, defaultSize: query.pageSize) { text in
            try TemplateHTTP.versionNumber(text: text, field: "pageToken")
        }
        query.pageSize = asked.size
        query.before = asked.token
        query.endVersionNumber = try TemplateHTTP.versionNumber(
            parameters.get("endVersionNumber"), field: "endVersionNumber")
        query.startTime = try Self.time(parameters.get("startTime"), field: "startTime")
        query.endTime = try Self.time(parameters.get("endTime"), field: "endTime")
        let page = try await templates.list(project, query)
        return try JSONResponse.make(
            TemplateVersionList(versions: page.items.map(TemplateHTTP.versionInfo), nextPageToken: page.next))
    }

    @Sendable func rollback(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .editor)
        let body = try await RollbackBody.read(request, context: context)
        let number = body.versionNumber
        guard let source = try await templates.version(project, number) else {
            throw APIError.notFound("version \(number) of \(project) not found")
        }
        let publishRequest = PublishRequest(
            templateJSON: source.templateJSON, expectedVersion: nil, updateType: .rollback,
            updateUser: key.auditActor.updateUser, updateOrigin: Self.origin(body.updateOrigin),
            description: "Rollback to version \(number)", rollbackSource: number)
        let stored = try await templates.publish(project, publishRequest, actor: key.auditActor)
        await publishing.announce(stored)
        return try TemplateHTTP.response(for: stored)
    }

    /// The `updateOrigin` a request may claim (`CONSOLE`, `CLI`); anything else is `REST_API`.
    static func origin(_ claimed: String?) -> UpdateOrigin {
        let claimable: Set<UpdateOrigin> = [.console, .restAPI, .cli]
        return claimed.flatMap(UpdateOrigin.init(rawValue:)).flatMap { claimable.contains($0) ? $0 : nil } ?? .restAPI
    }

    /// `POST …:rollback`: `{"versionNumber", "updateOrigin"}`, the number a string or a whole number.
    struct RollbackBody {
        let versionNumber: Int64
        let updateOrigin: String?

        static func read(_ request: Request, context: AppRequestContext) async throws -> RollbackBody {
            let body = try await JSONBody.decode(RollbackRequest.self, request, context: context)
            guard let number = try TemplateHTTP.versionNumber(body.versionNumber.text, field: "versionNumber") else {
                throw APIError.invalidField("versionNumber", reason: "REQUIRED", "versionNumber is required")
            }
            return RollbackBody(versionNumber: number, updateOrigin: body.updateOrigin)
        }
    }

    @Sendable func downloadDefaults(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .viewer)
        let format = (request.uri.queryParameters.get("format") ?? "JSON").uppercased()
        guard let kind = DefaultsFile.Format(rawValue: format) else {
            throw APIError.invalidField("format", reason: "INVALID_FORMAT", "format must be JSON, PLIST or XML")
        }
        var defaults: [(String, String)] = []
        if let stored = try await templates.latest(project) {
            let template = try RemoteConfigTemplate(json: Array(stored.templateJSON.utf8))
            for item in template.allParameters {
                if let value = item.parameter.defaultValue?.stringValue { defaults.append((item.key, value)) }
            }
        }
        let (bytes, contentType) = DefaultsFile.render(defaults, as: kind)
        return Response(
            status: .ok,
            headers: [.contentType: contentType, .contentDisposition: "attachment; filename=\"\(kind.fileName)\""],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    @Sendable func diff(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .viewer)
        let parameters = request.uri.queryParameters
        guard let fromText = parameters.get("from"), let toText = parameters.get("to") else {
            throw APIError.invalidArgument(
                "from and to are required (version numbers, or draft)",
                [parameters.get("from") == nil ? "from" : "to"].map { ErrorDetail(field: $0, reason: "REQUIRED") })
        }
        let from = try await side(fromText, field: "from", project: project)
        let to = try await side(toText, field: "to", project: project)
        return TemplateHTTP.response(TemplateHTTP.diff(from: fromText, to: toText, from, to))
    }

    /// One end of a diff: a version, or the draft (the published template when there is no draft).
    private func side(_ text: String, field: String, project: String) async throws -> RemoteConfigTemplate {
        let json: String
        if text == "draft" {
            if let draft = try await drafts.get(project) {
                json = draft.templateJSON
            } else {
                json = try await templates.latest(project)?.templateJSON ?? "{}"
            }
        } else {
            let number = try TemplateHTTP.versionNumber(text, field: field)!
            guard let stored = try await templates.version(project, number) else {
                throw APIError.notFound("version \(number) of \(project) not found")
            }
            json = stored.templateJSON
        }
        return try RemoteConfigTemplate(json: Array(json.utf8))
    }

    static func time(_ text: String?, field: String) throws -> Date? {
        guard let text else { return nil }
        // Kept to the millisecond, as every time is answered; a time whose UTC year has not four digits could
        // not be answered as it was given.
        guard let date = RFC3339.parseMilliseconds(text) else {
            throw APIError.invalidField(field, reason: "INVALID_TIME", "\(field) must be an RFC 3339 time")
        }
        guard date >= RFC3339.earliest, date < RFC3339.end else {
            throw APIError.invalidField(
                field, reason: "INVALID_TIME",
                "\(field) must be from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z (in UTC)")
        }
        return date
    }
}
