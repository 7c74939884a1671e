import Foundation
import Hummingbird
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// The publish workflow: open a change request (from a template, the draft or a rollback), list and read it
/// with its diff, approve, reject, cancel and publish it. Publishing goes through the one publish path, so a
/// version made from a change request reaches this server's cache at once and every other one by NOTIFY.
struct ChangeRequestsController {
    let changeRequests: ChangeRequestStore
    let templates: TemplateStore
    let drafts: DraftStore
    let access: ProjectAccess
    /// The one publish path's follow-up: metrics, and this server's cache told at once.
    let publishing: Publishing
    /// Where a large proposed template is validated and compiled.
    let heavyWork: HeavyWork

    static let collection = "/v1/projects/{p}/remoteConfig/changeRequests"

    func addRoutes(to routes: Routes) {
        routes.post(Self.collection, use: create)
        routes.get(Self.collection, query: ["state", "pageSize", "pageToken"], use: list)
        routes.get(Self.collection + "/{id}", use: get)
        routes.post(Self.collection + "/{id}:approve", use: approve)
        routes.post(Self.collection + "/{id}:reject", use: reject)
        routes.post(Self.collection + "/{id}:cancel", use: cancel)
        routes.post(Self.collection + "/{id}:publish", query: ["force"], use: publish)
    }

    /// `POST …/changeRequests`: a template body, a rollback, or (with neither) the draft named by `If-Match`;
    /// validated here exactly as a publish validates, so a bad one is refused now rather than at publish time.
    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .editor)
        let body = try CreateChangeRequestBody(
            try await JSONBody.decode(CreateChangeRequestRequest.self, request, context: context))
        var proposal = ChangeRequestProposal(
            templateJSON: "", description: body.description, publishTime: body.publishTime)
        if let template = body.template {
            proposal.templateJSON = try await Self.prepare(template, on: heavyWork).storedJSON
        } else if let source = body.rollbackSource {
            guard let stored = try await templates.version(project, source) else {
                throw StoreError.notFound(
                    "version \(source) of \(project)",
                    field: StoreErrorField(name: "rollbackSource", reason: "VERSION_NOT_FOUND"))
            }
            proposal.templateJSON = stored.templateJSON
            proposal.rollbackSource = source
        } else {
            let draft = try await currentDraft(project, request)
            let prepared = try await TemplateHTTP.prepare(ByteBuffer(string: draft.templateJSON), on: heavyWork) {
                $0.extra["baseVersionNumber"] = nil
            }
            proposal.templateJSON = prepared.storedJSON
            proposal.baseVersion = draft.baseVersion
        }
        let created: RemoteConfigStore.ChangeRequest
        do {
            created = try await changeRequests.create(project, proposal, actor: key.auditActor)
        } catch TemplateStoreError.invalid(let issues) where body.template != nil {
            // Named as the body's fields, as every other problem of a proposed template is.
            throw TemplateHTTP.apiError(
                .invalid(
                    issues.map {
                        ValidationIssue(field: "template." + $0.field, reason: $0.reason, message: $0.message)
                    }))
        }
        return try JSONResponse.make(try ChangeRequestJSON.body(created), status: .created)
    }

    /// The draft `If-Match` names (its ETag, or `*`): 428 without it, 404 without a draft, 412 when stale.
    private func currentDraft(_ project: String, _ request: Request) async throws -> StoredDraft {
        let precondition = try TemplateHTTP.precondition(request, kind: "draft", project: project)
        guard let draft = try await drafts.get(project) else { throw StoreError.notFound("draft of \(project)") }
        switch precondition {
        case .any: break
        case .number(let number) where number == draft.revision: break
        case .number, .unsavedDraft: throw TemplateStoreError.staleDraft(current: draft.revision)
        }
        return draft
    }

    /// Validates and compiles the `template` of a body like a publish body; errors name `template.<field>`.
    static func prepare(_ template: JSONValue, on heavyWork: HeavyWork) async throws -> PreparedTemplate {
        let bytes = ByteBuffer(bytes: template.jsonBytes())
        do {
            return try await TemplateHTTP.prepare(bytes, on: heavyWork)
        } catch var error as APIError {
            error.details = error.details.map { detail in
                var detail = detail
                detail.field = detail.field == "body" ? "template" : "template." + detail.field
                return detail
            }
            throw error
        }
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .viewer)
        let parameters = request.uri.queryParameters
        var query = ChangeRequestQuery()
        if let text = parameters.get("state") {
            guard let state = RemoteConfigStore.ChangeRequest.State(rawValue: text.uppercased()) else {
                throw APIError.invalidField(
                    "state", reason: "INVALID_STATE",
                    "state must be one of "
                        + RemoteConfigStore.ChangeRequest.State.allCases.map(\.rawValue).joined(separator: ", "))
            }
            query.state = state
        }
        let asked = try PageRequest(request, maximum: 300)
        query.limit = asked.size
        query.before = asked.before
        let page = try await changeRequests.list(project, query)
        return try JSONResponse.make(
            ChangeRequestList(changeRequests: try page.items.map(ChangeRequestJSON.body), nextPageToken: page.next))
    }

    /// One change request, with `diff` against the template published now.
    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .viewer)
        let found = try await read(project, context)
        var answer = try ChangeRequestJSON.body(found)
        let latest = try await templates.latest(project)
        let published = try RemoteConfigTemplate(json: Array((latest?.templateJSON ?? "{}").utf8))
        let proposed = try RemoteConfigTemplate(json: Array((found.templateJSON ?? "{}").utf8))
        answer.diff = .object(
            TemplateHTTP.diff(
                from: String(latest?.versionNumber ?? 0), to: RemoteConfigStore.ChangeRequest.name(found.id), published,
                proposed))
        return try JSONResponse.make(answer)
    }

    @Sendable func approve(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .editor)
        let id = try Self.id(context)
        let comment = try ChangeRequestJSON.comment(
            try await JSONBody.decode(ReviewRequest.self, request, context: context))
        let approved = try await changeRequests.approve(project, id, comment: comment, actor: key.auditActor)
        return try JSONResponse.make(try ChangeRequestJSON.body(approved))
    }

    @Sendable func reject(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .editor)
        let id = try Self.id(context)
        let comment = try ChangeRequestJSON.comment(
            try await JSONBody.decode(ReviewRequest.self, request, context: context))
        let rejected = try await changeRequests.reject(project, id, comment: comment, actor: key.auditActor)
        return try JSONResponse.make(try ChangeRequestJSON.body(rejected))
    }

    /// The author may cancel, or an admin.
    @Sendable func cancel(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .editor)
        let id = try Self.id(context)
        let cancelled = try await changeRequests.cancel(
            project, id, actor: key.auditActor, asAdmin: key.role(on: project)?.covers(.admin) == true)
        return try JSONResponse.make(try ChangeRequestJSON.body(cancelled))
    }

    /// Publishes now; answers the change request with the version it became (`publishedVersionNumber`).
    @Sendable func publish(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .editor)
        let id = try Self.id(context)
        let force = try request.flag("force")
        let done = try await changeRequests.publish(project, id, force: force, actor: key.auditActor)
        // This server's cache takes the version at once; the others hear of it by NOTIFY.
        await publishing.announce(done.version)
        return try JSONResponse.make(try ChangeRequestJSON.body(done.request))
    }

    private func read(_ project: String, _ context: AppRequestContext) async throws -> RemoteConfigStore.ChangeRequest {
        let id = try Self.id(context)
        guard let found = try await changeRequests.get(project, id) else {
            throw APIError.notFound("change request \(id) of \(project) not found")
        }
        return found
    }

    /// The `{id}` of the path: a change request number (404 for anything else, as for an unknown one).
    static func id(_ context: AppRequestContext) throws -> Int64 {
        let text = try context.parameters.require("id")
        guard let id = Int64(text), id >= 1 else { throw APIError.notFound("change request \(text) not found") }
        return id
    }
}
