import Foundation
import Hummingbird
import RemoteConfigCore
import RemoteConfigStore

/// `/v1/projects`: create, list and read projects.
struct ProjectsController {
    let projects: ProjectStore
    let auth: Authenticator

    /// `^[a-z][a-z0-9-]{2,62}$`, checked by hand (a `Regex` is not `Sendable`).
    static func isValidID(_ id: String) -> Bool {
        let scalars = Array(id.unicodeScalars)
        guard (3...63).contains(scalars.count), ("a"..."z").contains(scalars[0]) else { return false }
        return scalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    func addRoutes(to routes: Routes) {
        routes.post("/v1/projects", use: create)
        routes.get("/v1/projects", use: list)
        routes.get("/v1/projects/{p}", use: get)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let key = try await auth.require(.admin, on: .global, request)
        let body = try await CreateProjectBody.read(request, context: context)
        let project = try await projects.create(
            projectId: body.projectId, displayName: body.displayName, actor: key.auditActor)
        return JSONResponse.make(Self.json(project), status: .created)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let key = try await auth.require(.viewer, on: .any, request)
        let found = try await projects.list(only: key.project)
        return JSONResponse.make(["projects": .array(found.map { .object(Self.json($0)) })])
    }

    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let projectId = try context.parameters.require("p")
        _ = try await auth.require(.viewer, on: .project(projectId), request)
        guard let project = try await projects.get(projectId) else {
            throw APIError.notFound("project \(projectId) not found")
        }
        return JSONResponse.make(Self.json(project))
    }

    /// `POST /v1/projects`: `{"projectId", "displayName"}` (the id when no name is given).
    struct CreateProjectBody: RequestBody {
        let projectId: String
        let displayName: String

        init(_ body: JSONBody) throws {
            projectId = try body.requiredString("projectId")
            guard ProjectsController.isValidID(projectId) else {
                throw APIError.invalidField(
                    "projectId", reason: "INVALID_PROJECT_ID",
                    "projectId must start with a lowercase letter and have 3 to 63 lowercase letters, digits or dashes")
            }
            displayName = try body.string("displayName") ?? projectId
            try TextLimits.checkDisplayName(displayName)
        }
    }

    static func json(_ project: Project) -> JSONObject {
        [
            "projectId": .string(project.projectId), "displayName": .string(project.displayName),
            "createTime": .string(JSONResponse.timestamp(project.createTime)),
        ]
    }
}
