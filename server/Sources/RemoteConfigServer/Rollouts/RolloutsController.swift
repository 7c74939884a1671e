import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `/v1/projects/{p}/rollouts`: create a rollout, watch it, pause, resume, halt or complete it. Every version
/// it publishes goes through the one publish path, so this server's cache takes it at once and the others hear
/// of it by NOTIFY.
struct RolloutsController {
    let rollouts: RolloutStore
    let templates: TemplateStore
    let access: ProjectAccess
    /// The one publish path's follow-up: metrics, and this server's cache told at once.
    let publishing: Publishing

    static let collection = "/v1/projects/{p}/rollouts"

    func addRoutes(to routes: Routes) {
        routes.post(Self.collection, use: create)
        routes.get(Self.collection, query: ["state", "pageSize", "pageToken"], use: list)
        routes.get(Self.collection + "/{id}", use: get)
        routes.post(Self.collection + "/{id}:pause", use: pause)
        routes.post(Self.collection + "/{id}:resume", use: resume)
        routes.post(Self.collection + "/{id}:halt", use: halt)
        routes.post(Self.collection + "/{id}:complete", use: complete)
    }

    /// Checks the plan against the template published now, then creates and starts it (or proposes it).
    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .editor)
        let plan = try await RolloutCreateBody.read(request, context: context)
        let latest = try await templates.latest(project)
        let published = try RemoteConfigTemplate(json: Array((latest?.templateJSON ?? "{}").utf8))
        try RolloutCreateBody.check(plan, against: published)
        let created = try await rollouts.create(project, plan, actor: key.auditActor)
        if let version = created.version { await publishing.announce(version) }
        return try JSONResponse.make(
            RolloutWire.body(created.rollout, haltToken: created.haltToken), status: .created)
    }

    /// One page, newest first, as the other lists page: `pageSize` 1 to 300 (default 50), `nextPageToken`.
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .viewer)
        let asked = try PageRequest(request, maximum: 300)
        var state: RemoteConfigStore.Rollout.State?
        if let text = request.uri.queryParameters.get("state") {
            guard let value = RemoteConfigStore.Rollout.State(rawValue: text.uppercased()) else {
                throw APIError.invalidField(
                    "state", reason: "INVALID_STATE",
                    "state must be one of "
                        + RemoteConfigStore.Rollout.State.allCases.map(\.rawValue).joined(separator: ", "))
            }
            state = value
        }
        let page = try await rollouts.list(project, state: state, before: asked.before, limit: asked.size)
        return try JSONResponse.make(
            RolloutList(rollouts: page.items.map { RolloutWire.body($0) }, nextPageToken: page.next))
    }

    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .viewer)
        let id = try Self.id(context)
        guard let rollout = try await rollouts.get(project, id) else { throw Self.notFound(project, id) }
        return try JSONResponse.make(RolloutWire.body(rollout))
    }

    @Sendable func pause(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context) { project, id, actor in try await rollouts.pause(project, id, actor: actor) }
    }

    @Sendable func resume(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context) { project, id, actor in try await rollouts.resume(project, id, actor: actor) }
    }

    /// Needs no approval, whatever the project requires: stopping harm never waits for a review.
    @Sendable func halt(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context) { project, id, actor in try await rollouts.halt(project, id, actor: actor) }
    }

    /// While the project requires approval, opens a change request carrying the completion and publishes
    /// nothing: widening a rollout to everyone is a change like any other.
    @Sendable func complete(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context) { project, id, actor in
            try await rollouts.complete(project, id, actor: actor)
        }
    }

    /// An editor's action on one rollout; answers the rollout as it is afterwards.
    private func act(
        _ request: Request, _ context: AppRequestContext,
        _ action: @Sendable (String, Int64, AuditActor) async throws -> RolloutChange
    ) async throws -> Response {
        let (project, key) = try await access.project(request, context, .editor)
        let id = try Self.id(context)
        let change: RolloutChange
        do {
            change = try await action(project, id, key.auditActor)
        } catch StoreError.notFound(_, nil) {
            throw Self.notFound(project, id)
        }
        if let version = change.version { await publishing.announce(version) }
        return try JSONResponse.make(RolloutWire.body(change.rollout))
    }

    static func notFound(_ project: String, _ id: Int64) -> APIError {
        APIError.notFound("\(RemoteConfigStore.Rollout.name(id)) of \(project) not found")
    }

    /// The `{id}` of the path: a rollout number (404 for anything else, as for an unknown one).
    static func id(_ context: AppRequestContext) throws -> Int64 {
        let text = try context.parameters.require("id")
        guard let id = Int64(text), id >= 1 else { throw APIError.notFound("rollouts/\(text) not found") }
        return id
    }
}
