import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// The HTTP side of templates shared by the template and draft routes: ETags, decoding with
/// validation, and the JSON of versions.
enum TemplateHTTP {
    /// The strong ETag of a project's published state (version 0 before the first publish).
    static func etag(project: String, version: Int64) -> String { "\"etag-\(project)-\(version)\"" }

    /// The strong ETag of a draft revision.
    static func draftETag(project: String, revision: Int64) -> String { "\"draft-\(project)-\(revision)\"" }

    /// The strong ETag of a draft that is not stored yet: the copy of version `base` a read answers.
    static func unsavedDraftETag(project: String, base: Int64) -> String { "\"draft-\(project)-new-\(base)\"" }

    /// What `If-Match` asks for.
    enum Precondition: Equatable {
        /// `*`: write whatever the current state is.
        case any
        /// The number in an ETag of ours (a version or a draft revision); nil when the ETag is not ours.
        case number(Int64?)
        /// The ETag of an unsaved draft copied from version `base` (0: none): no draft may exist yet.
        case unsavedDraft(base: Int64)
    }

    /// Reads `If-Match`; 428 when it is missing.
    static func precondition(_ request: Request, kind: String, project: String) throws -> Precondition {
        let tag: String
        switch IfMatch(request) {
        case .absent:
            throw APIError(
                .preconditionRequired, "If-Match is required: send the ETag you read, or * to overwrite",
                details: [ErrorDetail(field: "If-Match", reason: "PRECONDITION_REQUIRED")])
        case .any: return .any
        case .tag(let text): tag = text
        }
        let prefix = "\(kind)-\(project)-"
        if kind == "draft", tag.hasPrefix(prefix + "new-"), let base = Int64(tag.dropFirst(prefix.count + 4)) {
            return .unsavedDraft(base: base)
        }
        guard tag.hasPrefix(prefix), let number = Int64(tag.dropFirst(prefix.count)) else { return .number(nil) }
        return .number(number)
    }

    /// 412 for a stale ETag.
    static func stale(_ what: String) -> APIError {
        APIError(
            .preconditionFailed, "the \(what) changed since you read it; read it again and retry",
            details: [ErrorDetail(field: "If-Match", reason: "ETAG_MISMATCH")])
    }

    /// Decodes, validates and compiles a template body in one pass, on the heavy-work threads when it is
    /// large (a 1 MiB template takes a while); 400 with every problem, field by field.
    static func prepare(
        _ body: ByteBuffer, on heavyWork: HeavyWork,
        adjust: @escaping @Sendable (inout RemoteConfigTemplate) -> Void = { _ in }
    ) async throws -> PreparedTemplate {
        try await heavyWork.run(size: body.readableBytes) { try prepare(body.readableBytesView, adjust: adjust) }
    }

    /// Decodes, validates and compiles a template; 400 with every problem, field by field.
    static func prepare(
        _ bytes: some Collection<UInt8>, adjust: (inout RemoteConfigTemplate) -> Void = { _ in }
    ) throws -> PreparedTemplate {
        do {
            return try PreparedTemplate.prepare(json: bytes, adjust: adjust, extraIssues: textIssues)
        } catch {
            throw apiError(error)
        }
    }

    /// Decodes and validates a template body (a draft, a preview: nothing to compile for serving), on the
    /// heavy-work threads when it is large; 400 with every problem, field by field.
    static func decodeTemplate(_ body: ByteBuffer, on heavyWork: HeavyWork) async throws -> RemoteConfigTemplate {
        try await heavyWork.run(size: body.readableBytes) { try decodeTemplate(body.readableBytesView) }
    }

    /// Decodes and validates a template body; 400 with every problem, field by field.
    static func decodeTemplate(_ bytes: some Collection<UInt8>) throws -> RemoteConfigTemplate {
        let template: RemoteConfigTemplate
        do {
            template = try RemoteConfigTemplate(json: bytes)
        } catch {
            throw apiError(.decoding(error))
        }
        try validate(template)
        return template
    }

    /// 400 listing every validation problem of `template`.
    static func validate(_ template: RemoteConfigTemplate) throws {
        let issues = TemplateValidator.validate(template) + textIssues(template)
        guard issues.isEmpty else { throw apiError(.invalid(issues)) }
    }

    /// The server's own rule on top of the template's: the version description's length.
    @Sendable static func textIssues(_ template: RemoteConfigTemplate) -> [ValidationIssue] {
        guard let description = template.version?.description,
            description.unicodeScalars.count > TextLimits.description
        else { return [] }
        return [
            ValidationIssue(
                field: "version.description", reason: "TOO_LONG",
                message: "version.description is at most \(TextLimits.description) characters")
        ]
    }

    /// The 400 for a template that cannot be published.
    static func apiError(_ failure: PreparedTemplate.Failure) -> APIError {
        switch failure {
        case .decoding(let error):
            let reason = error.byteOffset == nil ? "INVALID_TEMPLATE" : "MALFORMED_JSON"
            return APIError.invalidArgument(
                "the template is not valid: \(error.description)",
                [ErrorDetail(field: error.field.isEmpty ? "body" : error.field, reason: reason, message: error.message)]
            )
        case .invalid(let issues):
            let first = issues[0].message
            let more = issues.count > 1 ? " (and \(issues.count - 1) more problems)" : ""
            return APIError.invalidArgument(
                "the template is not valid: \(first)\(more)",
                issues.map { ErrorDetail(field: $0.field, reason: $0.reason, message: $0.message) })
        }
    }

    /// The JSON text stored for a template: everything but `version`.
    static func storedJSON(_ template: RemoteConfigTemplate) -> String {
        var copy = template
        copy.version = nil
        return copy.jsonValue.jsonString
    }

    /// The template of a stored version, with its `version` object.
    static func templateJSON(_ stored: StoredVersion) throws -> JSONObject {
        guard case .object(var object) = try JSONValue(parsing: stored.templateJSON) else {
            throw APIError(.internalServerError, "a stored template is not an object")
        }
        object["version"] = try APIEncoder.encode(versionInfo(stored))
        return object
    }

    /// A stored version as the answer to a read or a publish: the template with `version`, and its ETag.
    static func response(for stored: StoredVersion) throws -> Response {
        response(try templateJSON(stored), etag: etag(project: stored.project, version: stored.versionNumber))
    }

    /// The empty template served before the first publish.
    static let emptyTemplate: JSONObject = [
        "conditions": .array([]), "parameters": .object([:]), "parameterGroups": .object([:]),
    ]

    /// A version's metadata as Firebase writes it.
    static func versionInfo(_ stored: StoredVersion) -> TemplateVersionInfo {
        TemplateVersionInfo(
            versionNumber: String(stored.versionNumber), updateTime: JSONResponse.timestamp(stored.updateTime),
            updateUser: .init(email: stored.updateUser), updateOrigin: stored.updateOrigin.rawValue,
            updateType: stored.updateType.rawValue, description: stored.description.isEmpty ? nil : stored.description,
            rollbackSource: stored.rollbackSource.map { String($0) },
            promotedFrom: stored.promotedFrom.map {
                .init(project: $0.project, versionNumber: String($0.versionNumber))
            })
    }

    /// A diff in `remoteConfig:diff`'s shape: `from`, `to`, and what changed between the two templates.
    static func diff(from: String, to: String, _ before: RemoteConfigTemplate, _ after: RemoteConfigTemplate)
        -> JSONObject
    {
        var object: JSONObject = ["from": .string(from), "to": .string(to)]
        for member in TemplateDiff(from: before, to: after).jsonObject { object[member.key] = member.value }
        return object
    }

    /// A JSON response from an ordered object, with headers.
    static func response(_ object: JSONObject, status: HTTPResponse.Status = .ok, etag: String? = nil) -> Response {
        var headers = HTTPFields()
        if let etag { headers[.eTag] = etag }
        return JSONResponse.make(object, status: status, headers: headers)
    }

    /// A positive whole number from a query or body field; 400 naming the field otherwise.
    static func versionNumber(_ text: String?, field: String) throws -> Int64? {
        try text.map { try versionNumber(text: $0, field: field) }
    }

    /// `text` as a version number; a 400 naming `field` otherwise.
    static func versionNumber(text: String, field: String) throws -> Int64 {
        guard let number = Int64(text), number >= 1 else {
            throw APIError.invalidField(
                field, reason: "INVALID_VERSION_NUMBER", "\(field) must be a version number (1, 2, …)")
        }
        return number
    }
}
