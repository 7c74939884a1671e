import HTTPTypes
import Hummingbird

/// Client-key checks shared by fetch and stream: `X-API-Key` or `?key=`.
enum ClientAuth {
    static let header = HTTPField.Name("X-API-Key")!

    /// 401 without a valid key, 403 for a key that is not this project's client key.
    @discardableResult
    static func require(_ request: Request, project: String, keys: ClientKeys) async throws -> ClientKeys.Key {
        guard let secret = request.headers[header] ?? request.uri.queryParameters.get("key").map({ String($0) }),
            !secret.isEmpty
        else {
            throw APIError.unauthenticated("missing client key: send X-API-Key or ?key=")
        }
        guard let key = try await keys.lookup(secret: secret) else {
            throw APIError.unauthenticated("the client key is not valid or was revoked")
        }
        guard key.role == .client else {
            throw APIError.permissionDenied("this route takes a client key; admin keys go in Authorization")
        }
        guard key.project == project else {
            throw APIError.permissionDenied("the client key belongs to another project")
        }
        return key
    }
}
