import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// The audit log: one project's events for its viewers, every event (keys for all projects included) for an
/// admin for all projects. Each event names the acting key, since a display name is free text.
struct AuditLogController {
    let database: Database
    let auth: Authenticator
    let access: ProjectAccess

    func addRoutes(to routes: Routes) {
        routes.get("/v1/projects/{p}/auditLog", query: ["pageSize", "pageToken"], use: projectLog)
        routes.get("/v1/auditLog", query: ["pageSize", "pageToken"], use: globalLog)
    }

    @Sendable func projectLog(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .viewer)
        return try await page(of: project, request)
    }

    @Sendable func globalLog(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try await auth.require(.admin, on: .global, request)
        return try await page(of: nil, request)
    }

    /// One page of events of `project` (of all when nil), newest first.
    private func page(of project: String?, _ request: Request) async throws -> Response {
        let asked = try PageRequest(request, maximum: 1000)
        let page = try await AuditLog.list(project, before: asked.before, limit: asked.size, database: database)
        return try JSONResponse.make(
            AuditLogPage(
                events: page.items.map { Self.entry($0, withProject: project == nil) }, nextPageToken: page.next))
    }

    /// An event as the API writes it; the log of all projects also says which project each event changed.
    static func entry(_ event: AuditEvent, withProject: Bool) -> AuditLogEntry {
        AuditLogEntry(
            time: event.time,
            actor: ActingKey(
                key: event.actorKey, displayName: event.actor, user: event.actorUser, email: event.actorEmail),
            actorKey: event.actorKey, action: event.action,
            detail: (try? JSONValue(parsing: event.detailJSON)) ?? .object([:]),
            project: withProject ? .some(event.project) : nil)
    }
}
