import Foundation
import Hummingbird
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
        let pageSize = asked.size
        let events = try await AuditLog.list(project, before: asked.before, limit: pageSize + 1, database: database)
        var object: JSONObject = [
            "events": .array(events.prefix(pageSize).map { .object(Self.json($0, withProject: project == nil)) })
        ]
        if events.count > pageSize, let last = events.prefix(pageSize).last {
            object["nextPageToken"] = .string(String(last.id))
        }
        return TemplateHTTP.response(object)
    }

    /// An event as the API writes it; the log of all projects also says which project each event changed.
    static func json(_ event: AuditEvent, withProject: Bool) -> JSONObject {
        var object: JSONObject = [
            "time": .string(JSONResponse.timestamp(event.time)), "actor": .string(event.actor),
            "actorKey": event.actorKey.map { .string($0) } ?? .null, "action": .string(event.action),
            "detail": (try? JSONValue(parsing: event.detailJSON)) ?? .object([:]),
        ]
        if withProject { object["project"] = event.project.map { .string($0) } ?? .null }
        return object
    }
}
