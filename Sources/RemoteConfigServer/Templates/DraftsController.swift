import Foundation
import Hummingbird
import RemoteConfigCore
import RemoteConfigStore

/// The server-side draft: read (created from the published template), replace, discard, publish.
struct DraftsController {
    let environment: AppEnvironment
    let templatesController: TemplatesController

    var drafts: DraftStore { environment.drafts }

    func addRoutes(to routes: Routes) {
        routes.get("/v1/projects/{p}/remoteConfig/draft", use: get)
        routes.put("/v1/projects/{p}/remoteConfig/draft", use: save)
        routes.delete("/v1/projects/{p}/remoteConfig/draft", use: discard)
        routes.post("/v1/projects/{p}/remoteConfig/draft:publish", use: publish)
    }

    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await templatesController.project(request, context, .viewer)
        let draft: StoredDraft
        if let existing = try await drafts.get(project) {
            draft = existing
        } else {
            let latest = try await environment.templates.latest(project)
            let initial = latest?.templateJSON ?? JSONValue.object(TemplateHTTP.emptyTemplate).jsonString
            draft = try await drafts.getOrCreate(
                project, initialJSON: initial, baseVersion: latest?.versionNumber ?? 0, actor: key.displayName)
        }
        return try response(draft)
    }

    @Sendable func save(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await templatesController.project(request, context, .editor)
        let precondition = try TemplateHTTP.precondition(request, kind: "draft", project: project)
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        var template = try await TemplateHTTP.decodeTemplate(body)
        template.extra["baseVersionNumber"] = nil
        let expected: Int64? =
            switch precondition {
            case .any: nil
            case .number(let number): number ?? -1
            }
        let base = try await environment.templates.latest(project)?.versionNumber ?? 0
        do {
            let saved = try await drafts.save(
                project, templateJSON: TemplateHTTP.storedJSON(template), expectedRevision: expected, baseVersion: base,
                actor: key.displayName)
            return try response(saved)
        } catch TemplateStoreError.stale {
            throw TemplateHTTP.stale("draft")
        }
    }

    @Sendable func discard(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await templatesController.project(request, context, .editor)
        try await drafts.delete(project, actor: key.displayName)
        return TemplateHTTP.response([:])
    }

    @Sendable func publish(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await templatesController.project(request, context, .editor)
        let precondition = try TemplateHTTP.precondition(request, kind: "draft", project: project)
        let body = try await JSONBody.read(request, context: context)
        let description = try body.string("description") ?? ""
        let force = try request.flag("force")
        let expected: Int64? =
            switch precondition {
            case .any: nil
            case .number(let number): number ?? -1
            }
        do {
            let stored = try await templatesController.publishing {
                try await drafts.publish(
                    project, expectedRevision: expected, force: force, description: description, actor: key.displayName
                ) { draft in
                    try await HeavyWork.run {
                        var template = try TemplateHTTP.decodeTemplate(Array(draft.templateJSON.utf8))
                        template.extra["baseVersionNumber"] = nil
                        return TemplateHTTP.storedJSON(template)
                    }
                }
            }
            return try TemplateHTTP.response(for: stored)
        } catch TemplateStoreError.stale {
            throw TemplateHTTP.stale("draft")
        } catch TemplateStoreError.baseChanged(let base, let latest) {
            var error = APIError(
                .conflict,
                "version \(latest) was published after this draft's base version \(base); review the draft, or publish with force=true",
                details: [ErrorDetail(field: "baseVersionNumber", reason: "BASE_VERSION_CHANGED")])
            error.statusNameOverride = "ABORTED"
            throw error
        }
    }

    private func response(_ draft: StoredDraft) throws -> Response {
        guard case .object(var object) = try JSONValue(parsing: draft.templateJSON) else {
            throw APIError(.internalServerError, "a stored draft is not an object")
        }
        object["baseVersionNumber"] = .string(String(draft.baseVersion))
        return TemplateHTTP.response(
            object, etag: TemplateHTTP.draftETag(project: draft.project, revision: draft.revision))
    }
}
