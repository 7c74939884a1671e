import Foundation
import Hummingbird
import Logging
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// How many distinct app instances of a project were seen from `since` to `until` (on one platform, or all
/// when nil): what impact estimates are scaled to.
public typealias ActiveInstanceCount =
    @Sendable (_ project: String, _ since: Date, _ until: Date, _ platform: String?) async throws -> Int

/// `remoteConfig:impact`: what a candidate (a template body, the draft, a change request) would change for the
/// app instances seen recently, estimated from the impact sample by answering each sampled context with the
/// published and the candidate template as a fetch would. It never returns an instance id or a context.
struct ImpactController {
    let samples: InsightSampleStore
    let published: PublishedTemplates
    let templates: TemplateStore
    let drafts: DraftStore
    let changeRequests: ChangeRequestStore
    /// The project the path names and the caller, once the caller may read it (404 for an unknown one).
    let project: @Sendable (Request, AppRequestContext) async throws -> (String, Caller)
    /// Validates and compiles a template body exactly as a publish does (its 400 when invalid).
    let prepare: @Sendable (ByteBuffer) async throws -> PreparedTemplate
    /// Where estimates run: away from fetches and publishes, bounded per caller, stopped when abandoned.
    let work: ImpactWork
    /// The active-instance estimate; nil counts the sampled instances instead.
    let activeInstances: ActiveInstanceCount?
    /// The most sampled instances an estimate reads.
    let sampleSize: Int
    let logger: Logger

    /// The window when the body names none.
    static let defaultWindow: TimeInterval = 7 * 24 * 3600

    func addRoutes(to routes: Routes) {
        routes.post("/v1/projects/{p}/remoteConfig:impact", use: impact)
    }

    @Sendable func impact(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, caller) = try await self.project(request, context)
        return try await work.admitted(caller: caller.identity) {
            try await estimate(project, request, context)
        }
    }

    private func estimate(_ project: String, _ request: Request, _ context: AppRequestContext) async throws
        -> Response
    {
        let body = try await ImpactBody.read(request, context: context)
        let candidate = try await self.candidate(project, body.candidate)
        let current = try await publishedTemplate(project)
        let now = Date()
        let since = body.since ?? now.addingTimeInterval(-Self.defaultWindow)
        let rows = try await samples.recent(project, since: since, limit: sampleSize)
        let active = try await activeInstances?(project, since, now, nil)
        let estimator = ImpactEstimator(
            published: current, candidate: candidate, forceUpdateParameter: body.forceUpdateParameter)
        let sinceText = JSONResponse.timestamp(since)
        // A routed request's task is not cancelled when its client hangs up; the connection's watcher sees it.
        let left = await ConnectionWatcher.clientLeft(context.channel)
        let callerGone: @Sendable () -> Bool = { left?.withLockedValue { $0 } ?? false }
        let logger = self.logger
        let report = try await work.estimate(callerGone: callerGone) { stop in
            // Reading the sampled contexts costs about as much as answering them, so it runs on the estimates'
            // thread too, never on a thread the event loops share.
            let contexts = rows.compactMap { row -> FetchContext? in
                // Collection stores what a fetch accepted; a row that no longer reads is left out, not fatal.
                try? FetchRequest.context(from: Array(row.contextJSON.utf8), now: now, requireInstanceId: false)
            }
            if contexts.count < rows.count {
                logger.warning(
                    "impact sample of \(project): \(rows.count - contexts.count) unreadable contexts skipped")
            }
            return estimator.estimate(
                sample: contexts, since: sinceText, activeInstances: active ?? contexts.count, stop: stop)
        }
        return try Self.response(report)
    }

    /// The candidate, validated and compiled exactly as a publish would; 400 as a publish answers.
    private func candidate(_ project: String, _ candidate: ImpactRequest.Candidate) async throws -> CompiledTemplate {
        switch candidate {
        case .template(let template):
            return try await prepare(ByteBuffer(bytes: template.jsonBytes())).compiled
        case .draft:
            guard let draft = try await drafts.get(project) else {
                // No draft: reading it answers a copy of the published template, which changes nothing.
                return try await publishedTemplate(project) ?? CompiledTemplate(RemoteConfigTemplate())
            }
            // A stored draft carries `baseVersionNumber`, which a template body may not.
            guard case .object(var object) = try JSONValue(parsing: draft.templateJSON) else {
                throw APIError(.internalServerError, "a stored draft is not an object")
            }
            object["baseVersionNumber"] = nil
            return try await prepare(ByteBuffer(bytes: JSONValue.object(object).jsonBytes())).compiled
        case .changeRequest(let id):
            guard let found = try await changeRequests.get(project, id) else {
                throw APIError.notFound("change request \(id) of \(project) not found")
            }
            return try await prepare(ByteBuffer(string: found.templateJSON ?? "{}")).compiled
        }
    }

    /// The template fetches are answered from now; nil before the first publish.
    private func publishedTemplate(_ project: String) async throws -> CompiledTemplate? {
        if let compiled = published.entry(project)?.answers?.compiled { return compiled }
        guard let stored = try await templates.latest(project) else { return nil }
        return try await prepare(ByteBuffer(string: stored.templateJSON)).compiled
    }

    /// Written by the server's one JSON writer, members in the report's order.
    static func response(_ report: ImpactReport) throws -> Response {
        try JSONResponse.make(report)
    }
}
