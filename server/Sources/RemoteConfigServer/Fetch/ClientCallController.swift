import HTTPTypes
import Hummingbird
import NIOCore

/// The client calls (fetch, OFREP's bulk and single evaluation) through the router: a thin adapter onto the
/// one implementation, `FetchEndpoint`, which `FetchFront` calls too.
///
/// Connections normally have these calls answered on the event loop by `FetchFront`, before NIO's codec;
/// the router gets what the front hands on (a call on a connection that carried another kind of request
/// first, or in a form the front leaves to NIO's parser) and in-process tests. Both read the same headers
/// into the same `FetchCall`, so both answer alike, byte for byte.
struct ClientCallController {
    let endpoint: FetchEndpoint

    func addRoutes(to routes: Routes) {
        for kind in ClientRoute.Kind.allCases {
            routes.post(kind.path, query: kind.queryParameters.subtracting(routes.sharedQuery)) { request, context in
                try await answer(kind, request, context)
            }
        }
    }

    private func answer(_ kind: ClientRoute.Kind, _ request: Request, _ context: AppRequestContext) async throws
        -> Response
    {
        let route: ClientRoute =
            switch kind {
            case .fetch: .fetch(project: Substring(try context.projectID().rawValue))
            case .ofrepFlags: .ofrepFlags
            case .ofrepFlag: .ofrepFlag(key: Substring(try context.parameters.require("key")))
            }
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        var call = FetchCall(
            route: route, apiKeyHeader: request.headers[.apiKey],
            query: request.uri.query.map { Substring($0) }, ifNoneMatch: request.headers[.ifNoneMatch],
            acceptsGzip: AcceptEncoding.acceptsGzip(request.headers), body: body)
        if kind != .fetch {
            call.bearerToken = request.headers[.authorization].flatMap(BearerToken.token)
            call.origin = RequestOrigin(
                host: request.head.authority, forwardedHost: request.headers[.forwardedHost],
                forwardedProto: request.headers[.forwardedProto])
        }
        let reply = await endpoint.reply(call)
        return Response(status: reply.status, headers: reply.headers, body: .init(byteBuffer: reply.fullBody))
    }
}
