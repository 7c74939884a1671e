import Hummingbird
import RemoteConfigStore

/// The project an admin route names, once the caller's key may act on it with the route's role and the
/// project exists: the check every project route makes first, shared rather than borrowed from a controller.
struct ProjectAccess: Sendable {
    let auth: Authenticator
    let projects: ProjectStore

    /// The project of the route (`{p}`) and the caller; 401/403 for the key, 404 for the project.
    func project(_ request: Request, _ context: AppRequestContext, _ role: Role) async throws -> (String, Caller) {
        let project = try context.projectID().rawValue
        let key = try await auth.require(role, on: .project(project), request)
        guard try await projects.get(project) != nil else {
            throw APIError.notFound("project \(project) not found")
        }
        return (project, key)
    }
}
