import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RemoteConfigCore
import RemoteConfigStore

/// `remoteConfig:fetch` through the router. Connections normally answer it on the event loop
/// (`FetchFront`) before it reaches the router; this route serves what the front hands on (a fetch on a
/// connection that carried another kind of request first, or in a form it leaves to NIO's parser) and
/// in-process tests. Both use `FetchEndpoint`.
struct FetchController {
    let endpoint: FetchEndpoint

    func addRoutes(to routes: Routes) {
        routes.post(FetchEndpoint.route, use: fetch)
    }

    @Sendable func fetch(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let call = FetchCall(
            route: .fetch(project: Substring(try context.parameters.require("p"))),
            apiKeyHeader: request.headers[ClientAuth.header], query: request.uri.query.map { Substring($0) },
            ifNoneMatch: request.headers[.ifNoneMatch],
            acceptsGzip: AcceptEncoding.acceptsGzip(request.headers),
            body: body)
        let reply = await endpoint.reply(call)
        return Response(
            status: reply.status, headers: reply.headers, body: .init(byteBuffer: reply.body ?? ByteBuffer()))
    }
}

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
