import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// The server-side draft: read (created from the published template), replace, discard, publish.
struct DraftsController {
    let drafts: DraftStore
    let templates: TemplateStore
    let access: ProjectAccess
    /// The one publish path's follow-up: metrics, and this server's cache told at once.
    let publishing: Publishing
    /// Where a large draft is validated and compiled.
    let heavyWork: HeavyWork

    func addRoutes(to routes: Routes) {
        routes.get("/v1/projects/{p}/remoteConfig/draft", use: get)
        routes.put("/v1/projects/{p}/remoteConfig/draft", use: save)
        routes.delete("/v1/projects/{p}/remoteConfig/draft", use: discard)
        routes.post("/v1/projects/{p}/remoteConfig/draft:publish", query: ["force"], use: publish)
    }

    /// The stored draft, or else a copy of the published template that is not stored: a read writes nothing.
    /// The copy's ETag names its base, so a first save from it keeps the base the editor saw.
    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .viewer)
        if let existing = try await drafts.get(project) { return try response(existing) }
        let latest = try await templates.latest(project)
        let base = latest?.versionNumber ?? 0
        return try response(
            json: latest?.templateJSON ?? JSONValue.object(TemplateHTTP.emptyTemplate).jsonString, base: base,
            etag: TemplateHTTP.unsavedDraftETag(project: project, base: base))
    }

    @Sendable func save(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .editor)
        let precondition = try TemplateHTTP.precondition(request, kind: "draft", project: project)
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        var template = try await TemplateHTTP.decodeTemplate(body, on: heavyWork)
        template.extra["baseVersionNumber"] = nil
        var base = try await templates.latest(project)?.versionNumber ?? 0
        let expected: Int64?
        switch precondition {
        case .any: expected = nil
        case .number(let number): expected = number ?? -1
        case .unsavedDraft(let seen):
            // Saving the copy a read answered: only while no draft exists, and from the base that copy had.
            expected = DraftStore.noDraft
            base = seen
        }
        let saved = try await drafts.save(
            project, templateJSON: TemplateHTTP.storedJSON(template), expectedRevision: expected, baseVersion: base,
            actor: key.auditActor)
        return try response(saved)
    }

    @Sendable func discard(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .editor)
        try await drafts.delete(project, actor: key.auditActor)
        return try JSONResponse.make(EmptyBody())
    }

    @Sendable func publish(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .editor)
        let precondition = try TemplateHTTP.precondition(request, kind: "draft", project: project)
        let body = try await PublishDraftBody.read(request, context: context)
        let force = try request.flag("force")
        let expected: Int64? =
            switch precondition {
            case .any: nil
            case .number(let number): number ?? -1
            case .unsavedDraft: DraftStore.noDraft
            }
        // Checked here in the order the store checks them under the project's lock (missing, stale, base
        // changed), so the draft is validated and compiled before the transaction, not inside it.
        guard let draft = try await drafts.get(project) else { throw StoreError.notFound("draft of \(project)") }
        if let expected, expected != draft.revision { throw TemplateStoreError.staleDraft(current: draft.revision) }
        if !force {
            let latest = try await templates.latest(project)?.versionNumber ?? 0
            if draft.baseVersion != latest {
                throw TemplateStoreError.baseChanged(base: draft.baseVersion, latest: latest)
            }
        }
        let prepared = try await TemplateHTTP.prepare(ByteBuffer(string: draft.templateJSON), on: heavyWork) {
            $0.extra["baseVersionNumber"] = nil
        }
        let stored = try await drafts.publish(
            project, revision: draft.revision, templateJSON: prepared.storedJSON, force: force,
            description: body.description, origin: TemplatesController.origin(body.updateOrigin),
            actor: key.auditActor)
        await publishing.announce(stored, prepared: prepared)
        return try TemplateHTTP.response(for: stored)
    }

    /// `POST …/draft:publish`: `PublishDraftRequest`, its description within the limit.
    struct PublishDraftBody {
        let description: String
        /// What the publisher says it is (`CONSOLE`, `CLI`), as a `PUT`'s `version.updateOrigin` does.
        let updateOrigin: String?

        static func read(_ request: Request, context: AppRequestContext) async throws -> PublishDraftBody {
            let sent = try await JSONBody.decode(PublishDraftRequest.self, request, context: context)
            let description = sent.description ?? ""
            try TextLimits.check(description, field: "description", limit: TextLimits.description)
            return PublishDraftBody(description: description, updateOrigin: sent.updateOrigin)
        }
    }

    private func response(_ draft: StoredDraft) throws -> Response {
        try response(
            json: draft.templateJSON, base: draft.baseVersion,
            etag: TemplateHTTP.draftETag(project: draft.project, revision: draft.revision))
    }

    private func response(json: String, base: Int64, etag: String) throws -> Response {
        guard case .object(var object) = try JSONValue(parsing: json) else {
            throw APIError(.internalServerError, "a stored template is not an object")
        }
        object["baseVersionNumber"] = .string(String(base))
        return TemplateHTTP.response(object, etag: etag)
    }
}
