import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `remoteConfig:evaluate`: what a fetch with a given context would answer from the published template, a
/// version or the draft, and why (each parameter's source, each condition's truth). It evaluates with the
/// fetch path's own tables (`CompiledTemplate.explain`) and stores nothing.
struct PreviewController {
    let published: PublishedTemplates
    let templates: TemplateStore
    let drafts: DraftStore
    let access: ProjectAccess

    func addRoutes(to routes: Routes) {
        routes.post("/v1/projects/{p}/remoteConfig:evaluate", use: evaluate)
    }

    @Sendable func evaluate(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .viewer)
        let body = try await PreviewBody.read(request, context: context)
        let compiled = try await template(project, version: body.versionNumber)
        return try JSONResponse.make(Self.answer(compiled, body.caller))
    }

    /// `PreviewRequest`: the caller, checked as a fetch checks it, and the version to evaluate.
    struct PreviewBody {
        let caller: FetchContext
        let versionNumber: JSONValue?

        static func read(_ request: Request, context: AppRequestContext) async throws -> PreviewBody {
            let sent = try await JSONBody.decode(PreviewRequest.self, request, context: context)
            return PreviewBody(caller: try PreviewController.context(sent.context), versionNumber: sent.versionNumber)
        }
    }

    /// The caller: the fetch body's fields, checked as a fetch checks them, but the instance id may be absent.
    static func context(_ value: JSONValue?) throws -> FetchContext {
        guard let value, value != .null else { return FetchContext(now: Date()) }
        guard case .object = value else {
            throw APIError.invalidField("context", reason: "NOT_AN_OBJECT", "context must be an object")
        }
        do {
            return try FetchRequest.context(from: value.jsonBytes(), now: Date(), requireInstanceId: false)
        } catch var error as APIError {
            error.details = error.details.map { detail in
                var detail = detail
                detail.field = "context." + detail.field
                return detail
            }
            throw error
        }
    }

    /// The template to evaluate, compiled; nil when nothing is published and no version was named.
    private func template(_ project: String, version: JSONValue?) async throws -> CompiledTemplate? {
        switch version {
        case nil, .null?:
            if let compiled = published.entry(project)?.answers?.compiled { return compiled }
            guard let stored = try await templates.latest(project) else { return nil }
            return try compile(stored.templateJSON, version: stored.versionNumber)
        case .string("draft")?:
            if let draft = try await drafts.get(project) {
                return try compile(draft.templateJSON, version: nil)
            }
            // No draft yet: a draft read answers a copy of the published template, so preview that.
            return try await template(project, version: nil)
        case .string(let text)?:
            guard let number = try TemplateHTTP.versionNumber(text, field: "versionNumber") else {
                return try await template(project, version: nil)
            }
            guard let stored = try await templates.version(project, number) else {
                throw APIError.notFound("version \(number) of \(project) not found")
            }
            return try compile(stored.templateJSON, version: stored.versionNumber)
        default:
            throw APIError.invalidField(
                "versionNumber", reason: "INVALID_VERSION", "versionNumber must be a version number or \"draft\"")
        }
    }

    private func compile(_ json: String, version: Int64?) throws -> CompiledTemplate {
        var template = try TemplateHTTP.decodeTemplate(Array(json.utf8))
        template.version = version.map { TemplateVersion(versionNumber: String($0)) }
        do {
            return try CompiledTemplate(template)
        } catch {
            // Only a draft can hold a condition that does not compile: published ones were checked.
            throw APIError.invalidField(
                "conditions", reason: "INVALID_EXPRESSION", "the template's conditions do not compile: \(error)")
        }
    }

    /// The answer: what a fetch would get, and why.
    private static func answer(_ compiled: CompiledTemplate?, _ caller: FetchContext) -> PreviewAnswer {
        guard let compiled else {
            return PreviewAnswer(
                entries: .init(), state: FetchState.noTemplate.rawValue, parameters: .init(), conditions: .init())
        }
        let explanation = compiled.explain(caller)
        var entries = OrderedMembers<String>()
        for entry in explanation.result.entries { entries.append(entry.key, entry.value) }
        var parameters = OrderedMembers<PreviewAnswer.Parameter>()
        for outcome in explanation.parameters {
            parameters.append(
                outcome.key,
                PreviewAnswer.Parameter(
                    source: outcome.source.rawValue, value: outcome.value, condition: outcome.condition))
        }
        var conditions = OrderedMembers<Bool?>()
        var seen = Set<String>()
        for (name, truth) in explanation.conditions where seen.insert(name).inserted {
            let value: Bool? =
                switch truth {
                case .true: true
                case .false: false
                case .unknown: nil
                }
            conditions.append(name, value)
        }
        return PreviewAnswer(
            entries: entries, state: explanation.result.state.rawValue, parameters: parameters,
            conditions: conditions, templateVersion: explanation.result.templateVersion)
    }
}
