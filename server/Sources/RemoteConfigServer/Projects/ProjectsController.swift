import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `/v1/projects`: create, list, read projects and change their settings.
struct ProjectsController {
    let projects: ProjectStore
    let auth: Authenticator

    func addRoutes(to routes: Routes) {
        routes.post("/v1/projects", use: create)
        routes.get("/v1/projects", use: list)
        routes.get("/v1/projects/{p}", use: get)
        routes.patch("/v1/projects/{p}", use: update)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let key = try await auth.require(.admin, on: .global, request)
        let body = try await JSONBody.decode(CreateProjectRequest.self, request, context: context)
        guard ProjectID(body.projectId) != nil else {
            throw APIError.invalidField(
                "projectId", reason: "INVALID_PROJECT_ID",
                "projectId must start with a lowercase letter and have 3 to 63 lowercase letters, digits or dashes")
        }
        let displayName = body.displayName ?? body.projectId
        try TextLimits.checkDisplayName(displayName)
        let project = try await projects.create(
            projectId: body.projectId, displayName: displayName, actor: key.auditActor)
        return try JSONResponse.make(Self.body(project), status: .created)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let key = try await auth.require(.viewer, on: .any, request)
        let visible = key.projects(with: .viewer)
        let found = try await projects.list(only: key.project).filter { visible?.contains($0.projectId) ?? true }
        return try JSONResponse.make(ProjectList(projects: found.map(Self.body)))
    }

    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let projectId = try context.projectID().rawValue
        _ = try await auth.require(.viewer, on: .project(projectId), request)
        guard let project = try await projects.get(projectId) else {
            throw APIError.notFound("project \(projectId) not found")
        }
        return try JSONResponse.make(Self.body(project))
    }

    /// `PATCH /v1/projects/{p}`: the display name and the publish workflow settings (admin, audited).
    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> Response {
        let projectId = try context.projectID().rawValue
        let key = try await auth.require(.admin, on: .project(projectId), request)
        let body = try await JSONBody.decode(UpdateProjectRequest.self, request, context: context)
        let update = try Self.update(body)
        // A project the caller cannot read is answered as one that does not exist: no existence oracle.
        if case .some(let target?) = update.promotesTo, key.role(on: target)?.covers(.viewer) != true {
            throw APIError(ProjectLinkError.notFound(target))
        }
        let project = try await projects.update(projectId, update, actor: key.auditActor)
        return try JSONResponse.make(Self.body(project))
    }

    /// The settings a PATCH changes: each optional, at least one.
    static func update(_ body: UpdateProjectRequest) throws -> ProjectUpdate {
        var update = ProjectUpdate()
        if let name = body.displayName {
            try TextLimits.checkDisplayName(name)
            update.displayName = name
        }
        update.requireApproval = body.requireApproval
        if let number = body.approvalsRequired {
            let maximum = ProjectUpdate.maximumApprovals
            guard let count = Int(exactly: number), (1...maximum).contains(count) else {
                throw APIError.invalidField(
                    "approvalsRequired", reason: "OUT_OF_RANGE",
                    "approvalsRequired must be a whole number from 1 to \(maximum)")
            }
            update.approvalsRequired = count
        }
        if let name = body.environmentName {
            if let name {
                try TextLimits.check(name, field: "environmentName", limit: Self.environmentNameLimit)
                try TextLimits.checkDisplayName(name, field: "environmentName")
                guard !name.isEmpty else {
                    throw APIError.invalidField(
                        "environmentName", reason: "REQUIRED",
                        "environmentName must not be empty; send null to clear it")
                }
            }
            update.environmentName = .some(name)
        }
        if let target = body.promotesTo {
            if let target, ProjectID(target) == nil {
                throw APIError(ProjectLinkError.notFound(target))
            }
            update.promotesTo = .some(target)
        }
        if let local = body.localParameters {
            guard local.count <= Self.localParametersLimit else {
                throw APIError.invalidField(
                    "localParameters", reason: "LIMIT_EXCEEDED",
                    "localParameters names at most \(Self.localParametersLimit) parameters")
            }
            for (index, key) in local.enumerated() where !TemplateValidator.isValidKey(key) {
                throw APIError.invalidField(
                    "localParameters.\(index)", reason: "INVALID_KEY",
                    "localParameters.\(index) must be a parameter key: a letter or _, then letters, digits or _")
            }
            var seen = Set<String>()
            update.localParameters = local.filter { seen.insert($0).inserted }
        }
        guard update != ProjectUpdate() else {
            throw APIError.invalidField(
                "body", reason: "REQUIRED",
                "send at least one of displayName, requireApproval, approvalsRequired, environmentName, promotesTo, "
                    + "localParameters")
        }
        return update
    }

    /// The longest `environmentName`: it is shown in the console's header.
    static let environmentNameLimit = 64
    /// The most `localParameters`: Firebase's limit of parameters in a template.
    static let localParametersLimit = 3000

    /// A stored project as the API writes it.
    static func body(_ project: RemoteConfigStore.Project) -> RemoteConfigAPI.Project {
        RemoteConfigAPI.Project(
            projectId: project.projectId, displayName: project.displayName, createTime: project.createTime,
            requireApproval: project.requireApproval, approvalsRequired: project.approvalsRequired,
            environmentName: project.environmentName, promotesTo: project.promotesTo,
            localParameters: project.localParameters)
    }
}
