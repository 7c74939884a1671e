import HTTPTypes
import Hummingbird
import RemoteConfigStore

/// Resolves the `Authorization: Bearer` key of an admin request and checks its role and project.
struct Authenticator: Sendable {
    let keys: KeyStore

    /// The key of the request when it may act with `role` on `scope`; 401 or 403 otherwise.
    func require(_ role: Role, on scope: AccessScope, _ request: Request) async throws -> APIKey {
        guard let header = request.headers[.authorization] else {
            throw APIError.unauthenticated("missing Authorization: Bearer <token>")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw APIError.unauthenticated("the Authorization header must be `Bearer <token>`")
        }
        guard let key = try await keys.authenticate(secret: String(parts[1])) else {
            throw APIError.unauthenticated("the token is not valid or was revoked")
        }
        guard key.role != .client else {
            throw APIError.permissionDenied("a client key opens only the client routes")
        }
        guard key.role.covers(role) else {
            throw APIError.permissionDenied(
                "this route needs the \(role.rawValue) role; the key is \(key.role.rawValue)")
        }
        switch scope {
        case .project(let project):
            if let own = key.project, own != project {
                throw APIError.permissionDenied("the key belongs to another project")
            }
        case .global:
            if key.project != nil {
                throw APIError.permissionDenied("this route needs a key for all projects")
            }
        case .any:
            break
        }
        return key
    }
}
