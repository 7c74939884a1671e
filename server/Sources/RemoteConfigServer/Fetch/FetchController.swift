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
