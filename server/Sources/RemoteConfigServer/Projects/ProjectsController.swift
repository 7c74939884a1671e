import Foundation
import Hummingbird
import RemoteConfigCore
import RemoteConfigStore

/// `/v1/projects`: create, list, read projects and change their settings.
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
        routes.patch("/v1/projects/{p}", use: update)
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

    /// `PATCH /v1/projects/{p}`: the display name and the publish workflow settings (admin, audited).
    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> Response {
        let projectId = try context.parameters.require("p")
        let key = try await auth.require(.admin, on: .project(projectId), request)
        let body = try await UpdateProjectBody.read(request, context: context)
        let project = try await projects.update(projectId, body.update, actor: key.auditActor)
        return JSONResponse.make(Self.json(project))
    }

    /// `PATCH /v1/projects/{p}`: `{"displayName", "requireApproval", "approvalsRequired"}`, each optional, at
    /// least one; no other field.
    struct UpdateProjectBody: RequestBody {
        let update: ProjectUpdate

        init(_ body: JSONBody) throws {
            let known: Set<String> = ["displayName", "requireApproval", "approvalsRequired"]
            for key in body.object.keys where !known.contains(key) {
                throw APIError.invalidField(
                    key, reason: "UNKNOWN_FIELD",
                    "\(key) is not a project setting; PATCH takes displayName, requireApproval, approvalsRequired")
            }
            var update = ProjectUpdate()
            if let name = try body.string("displayName") {
                try TextLimits.checkDisplayName(name)
                update.displayName = name
            }
            switch body.object["requireApproval"] {
            case nil, .null?: break
            case .bool(let value)?: update.requireApproval = value
            default:
                throw APIError.invalidField(
                    "requireApproval", reason: "NOT_A_BOOLEAN", "requireApproval must be true or false")
            }
            switch body.object["approvalsRequired"] {
            case nil, .null?: break
            case .number(let text)?:
                let maximum = ProjectUpdate.maximumApprovals
                guard let count = Int(text) ?? Double(text).flatMap({ Int(exactly: $0) }), (1...maximum).contains(count)
                else {
                    throw APIError.invalidField(
                        "approvalsRequired", reason: "OUT_OF_RANGE",
                        "approvalsRequired must be a whole number from 1 to \(maximum)")
                }
                update.approvalsRequired = count
            default:
                throw APIError.invalidField(
                    "approvalsRequired", reason: "NOT_A_NUMBER", "approvalsRequired must be a whole number")
            }
            guard update != ProjectUpdate() else {
                throw APIError.invalidField(
                    "body", reason: "REQUIRED", "send at least one of displayName, requireApproval, approvalsRequired")
            }
            self.update = update
        }
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
            "requireApproval": .bool(project.requireApproval),
            "approvalsRequired": .integer(project.approvalsRequired),
        ]
    }
}
