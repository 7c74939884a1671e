import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `POST /v1/projects/{to}/remoteConfig:promote`: another project's published version promoted into this one,
/// three-way against the version promoted last, through this project's own rules (its ETag, its validation, its
/// approvals), as a publish, a draft or a change request, or only planned (`validateOnly`).
struct PromotionController {
    let projects: ProjectStore
    let templates: TemplateStore
    let drafts: DraftStore
    let changeRequests: ChangeRequestStore
    let access: ProjectAccess
    let publishing: Publishing
    let heavyWork: HeavyWork

    /// Promotions that lose a race with another publish onto a target read with `If-Match: *` plan again, this
    /// many times at most.
    static let attempts = 3

    func addRoutes(to routes: Routes) {
        routes.post("/v1/projects/{p}/remoteConfig:promote", use: promote)
    }

    @Sendable func promote(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (to, caller) = try await access.project(request, context, .editor)
        let body = try await JSONBody.decode(PromoteRequest.self, request, context: context)
        let target = try await projects.get(to)
        let mode = try Self.mode(body, requireApproval: target?.requireApproval ?? false)
        let precondition = try TemplateHTTP.precondition(request, kind: mode == "DRAFT" ? "draft" : "etag", project: to)
        let description = body.description ?? ""
        try TextLimits.check(description, field: "description", limit: TextLimits.description)
        let source = try await sourceProject(body.from, to: to, caller: caller)
        let sourceVersion = try await sourceVersion(source.projectId, body.fromVersionNumber)
        let request = PromotionRequest(
            parameters: body.parameters, overwriteTargetChanges: body.overwriteTargetChanges ?? false,
            localParameters: Set(source.localParameters))
        let promotedFrom = PromotedFrom(project: source.projectId, versionNumber: sourceVersion.versionNumber)
        let text =
            description.isEmpty
            ? "Promoted from \(source.projectId) version \(sourceVersion.versionNumber)" : description
        for attempt in 1...Self.attempts {
            let planned = try await plan(sourceVersion, into: to, request)
            let expected: Int64? =
                switch precondition {
                case .any: nil
                case .number(let number): number ?? -1
                case .unsavedDraft: DraftStore.noDraft
                }
            if mode != "DRAFT", let expected, expected != planned.targetVersion {
                throw TemplateHTTP.stale("published template")
            }
            var answer = planned.table(from: promotedFrom, to: to)
            // Nothing to move and this very version is the base already: promoting twice changes nothing. A plan
            // that moves nothing onto an older base still publishes, so the base moves on (a hotfix kept now is
            // kept next time too).
            let idle = !planned.changes && planned.baseVersion == sourceVersion.versionNumber
            answer["changed"] = .bool(!idle)
            if body.validateOnly == true || idle {
                if let current = try await templates.latest(to), idle, body.validateOnly != true {
                    answer["version"] = try APIEncoder.encode(TemplateHTTP.versionInfo(current))
                }
                return TemplateHTTP.response(
                    answer, etag: TemplateHTTP.etag(project: to, version: planned.targetVersion))
            }
            let actor = caller.auditActor
            switch mode {
            case "DRAFT":
                let saved = try await drafts.save(
                    to, templateJSON: planned.prepared.storedJSON, expectedRevision: expected,
                    baseVersion: planned.targetVersion, actor: actor, promotedFrom: promotedFrom)
                answer["draft"] = .object([
                    "baseVersionNumber": .string(String(saved.baseVersion)),
                    "etag": .string(TemplateHTTP.draftETag(project: to, revision: saved.revision)),
                ])
                return TemplateHTTP.response(
                    answer, etag: TemplateHTTP.draftETag(project: to, revision: saved.revision))
            case "CHANGE_REQUEST":
                let created = try await changeRequests.create(
                    to,
                    ChangeRequestProposal(
                        templateJSON: planned.prepared.storedJSON, description: text,
                        baseVersion: planned.targetVersion, promotedFrom: promotedFrom),
                    actor: actor)
                answer["changeRequest"] = try APIEncoder.encode(ChangeRequestJSON.body(created))
                return TemplateHTTP.response(
                    answer, status: .ok, etag: TemplateHTTP.etag(project: to, version: planned.targetVersion))
            default:
                let publish = PublishRequest(
                    templateJSON: planned.prepared.storedJSON,
                    // Against the version the plan read, whatever If-Match said: a publish in between must make
                    // this plan again, never be overwritten by a plan that did not see it.
                    expectedVersion: planned.targetVersion,
                    updateType: expected == nil ? .forcedUpdate : .incrementalUpdate, updateUser: actor.updateUser,
                    updateOrigin: .promotion, description: text, promotedFrom: promotedFrom)
                do {
                    let stored = try await templates.publish(to, publish, actor: actor)
                    await publishing.announce(stored, prepared: planned.prepared)
                    answer["version"] = try APIEncoder.encode(TemplateHTTP.versionInfo(stored))
                    return TemplateHTTP.response(
                        answer, etag: TemplateHTTP.etag(project: to, version: stored.versionNumber))
                } catch TemplateStoreError.stale where expected == nil && attempt < Self.attempts {
                    continue
                } catch TemplateStoreError.stale {
                    throw TemplateHTTP.stale("published template")
                }
            }
        }
        throw APIError.aborted("the target kept changing while the promotion published; retry")
    }

    /// `as`, checked: `CHANGE_REQUEST` by default while the target requires approval, else `PUBLISH`; a
    /// `PUBLISH` asked of a target that requires approval is 403, as a publish is.
    static func mode(_ body: PromoteRequest, requireApproval: Bool) throws -> String {
        guard let mode = body.as else { return requireApproval ? "CHANGE_REQUEST" : "PUBLISH" }
        guard PromoteRequest.modes.contains(mode) else {
            throw APIError.invalidField("as", reason: "INVALID_MODE", "as must be PUBLISH, DRAFT or CHANGE_REQUEST")
        }
        if mode == "PUBLISH", requireApproval, body.validateOnly != true {
            throw APIError(
                .forbidden, "the target requires approval: promote with \"as\": \"CHANGE_REQUEST\"",
                details: [ErrorDetail(field: "as", reason: "APPROVAL_REQUIRED")])
        }
        return mode
    }

    /// The source project: `from`, or the one project that promotes to `to`; one the caller cannot read is
    /// answered as one that does not exist.
    private func sourceProject(_ from: String?, to: String, caller: Caller) async throws -> RemoteConfigStore.Project {
        let name: String
        if let from {
            name = from
        } else {
            let linked = try await projects.list().filter { $0.promotesTo == to }
            guard linked.count == 1 else {
                throw APIError.invalidField(
                    "from", reason: linked.isEmpty ? "NO_SOURCE" : "SEVERAL_SOURCES",
                    linked.isEmpty
                        ? "no project promotes to \(to): name it in from, or link it with promotesTo"
                        : "several projects promote to \(to) (\(linked.map(\.projectId).joined(separator: ", "))): name one in from"
                )
            }
            name = linked[0].projectId
        }
        guard name != to, caller.role(on: name)?.covers(.viewer) == true, let project = try await projects.get(name)
        else {
            throw APIError.invalidField(
                "from", reason: name == to ? "SAME_PROJECT" : "PROJECT_NOT_FOUND",
                name == to ? "a project cannot be promoted into itself" : "project \(name) does not exist")
        }
        return project
    }

    /// The source's version to promote: `fromVersionNumber`, or its published one. Never a draft.
    private func sourceVersion(_ project: String, _ number: String?) async throws -> StoredVersion {
        if let wanted = try TemplateHTTP.versionNumber(number, field: "fromVersionNumber") {
            guard let version = try await templates.version(project, wanted) else {
                throw APIError.invalidField(
                    "fromVersionNumber", reason: "VERSION_NOT_FOUND", "\(project) has no version \(wanted)")
            }
            return version
        }
        guard let latest = try await templates.latest(project) else {
            throw APIError.invalidField(
                "from", reason: "NOTHING_PUBLISHED", "\(project) has no published version to promote")
        }
        return latest
    }

    /// The plan of promoting `source` into `to` as it is now, against the base the last promotion recorded; 409
    /// with every conflict, 400 when the result would not publish.
    private func plan(_ source: StoredVersion, into to: String, _ request: PromotionRequest) async throws
        -> PlannedPromotion
    {
        let target = try await templates.latest(to)
        let baseNumber = try await templates.lastPromotion(into: to, from: source.project)
        let base = try await baseNumber.asyncMap { try await templates.version(source.project, $0) } ?? nil
        let size = source.templateJSON.utf8.count + (target?.templateJSON.utf8.count ?? 0)
        let planned = try await heavyWork.run(size: size) { () throws -> (PromotionPlan, PreparedTemplate?) in
            let plan = Promotion.plan(
                source: try RemoteConfigTemplate(json: Array(source.templateJSON.utf8)),
                target: try target.map { try RemoteConfigTemplate(json: Array($0.templateJSON.utf8)) }
                    ?? RemoteConfigTemplate(),
                base: try base.map { try RemoteConfigTemplate(json: Array($0.templateJSON.utf8)) }, request: request)
            guard let result = plan.result else { return (plan, nil) }
            do {
                return (plan, try PreparedTemplate(result, extraIssues: TemplateHTTP.textIssues))
            } catch let failure as PreparedTemplate.Failure {
                throw TemplateHTTP.apiError(failure)
            }
        }
        guard let prepared = planned.1 else { throw Self.conflict(planned.0) }
        return PlannedPromotion(
            plan: planned.0, prepared: prepared, targetVersion: target?.versionNumber ?? 0, baseVersion: baseNumber)
    }

    /// 409 `ABORTED` naming every conflicting parameter and condition.
    static func conflict(_ plan: PromotionPlan) -> APIError {
        let names = plan.conflicts.map(\.key).joined(separator: ", ")
        return .aborted(
            "the promotion conflicts with changes made in the target since the last promotion (\(names)): name the "
                + "parameters to take from the source, or set overwriteTargetChanges",
            plan.conflicts.map { conflict in
                ErrorDetail(
                    field: conflict.reason == .parameter ? "parameters.\(conflict.key)" : "conditions.\(conflict.key)",
                    reason: conflict.reason.rawValue)
            })
    }
}

extension Optional {
    /// `map` with an asynchronous transform.
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
